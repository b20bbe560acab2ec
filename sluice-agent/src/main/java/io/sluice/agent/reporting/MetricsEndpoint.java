package io.sluice.agent.reporting;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.ResourceStatistics;
import io.sluice.flow.WindowStatistics;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The application's per-resource statistics in Prometheus's text format at {@code
 * http://127.0.0.1:<port>/metrics}, opt-in ({@code metrics.port}, off by default). It is the JDK's
 * own HTTP server on one daemon thread of the agent's, bound to loopback: the application sees no
 * new class, dependency or thread of its own kind. A scrape reads sluice-flow's snapshots, which
 * never stop the callers.
 *
 * <p>Invariants: one scrape at a time (one thread, at most 4 waiting, more are refused by the JDK
 * server's backlog); resources are those sluice-flow keeps statistics for (with a rule, or all with
 * {@code traffic.all-resources}).
 */
public final class MetricsEndpoint implements AutoCloseable {
  public static final String PATH = "/metrics";
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService thread;

  private MetricsEndpoint(HttpServer server, ExecutorService thread) {
    this.server = server;
    this.thread = thread;
  }

  /**
   * Listens on {@code port} of the loopback address (0: any free port, for tests).
   *
   * @throws IOException when the port cannot be bound
   */
  public static MetricsEndpoint start(int port, FlowRegistry registry) throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 4);
    ExecutorService thread =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(4),
            runnable -> {
              Thread t = new Thread(runnable, "sluice-agent-metrics");
              t.setDaemon(true);
              return t;
            },
            new ThreadPoolExecutor.DiscardPolicy());
    server.createContext(PATH, exchange -> answer(exchange, registry));
    server.setExecutor(thread);
    server.start();
    return new MetricsEndpoint(server, thread);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void answer(HttpExchange exchange, FlowRegistry registry) throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod())) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] body = render(registry).getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /** Every family, each with one sample per resource. */
  static String render(FlowRegistry registry) {
    java.util.List<ResourceStatistics> all = registry.statistics();
    StringBuilder out = new StringBuilder(256 + all.size() * 600);
    family(out, "sluice_resource_passed_total", "counter", "Calls admitted, per resource");
    for (ResourceStatistics s : all) {
      sample(out, "sluice_resource_passed_total", s.resource(), s.total().passed());
    }
    family(out, "sluice_resource_blocked_total", "counter", "Calls refused by a rule");
    for (ResourceStatistics s : all) {
      sample(out, "sluice_resource_blocked_total", s.resource(), s.total().blocked());
    }
    family(out, "sluice_resource_failed_total", "counter", "Admitted calls that failed");
    for (ResourceStatistics s : all) {
      sample(out, "sluice_resource_failed_total", s.resource(), s.total().failed());
    }
    family(
        out,
        "sluice_resource_rt_seconds",
        "summary",
        "Response times of the timed calls (all calls up to 100,000 a second, a sample above);"
            + " quantiles over the last minute");
    for (ResourceStatistics s : all) {
      WindowStatistics minute = s.lastMinute();
      WindowStatistics total = s.total();
      if (minute.timedCompletions() > 0) {
        quantile(out, s.resource(), "0.5", minute.percentileNanos(0.5) / 1e9);
        quantile(out, s.resource(), "0.99", minute.percentileNanos(0.99) / 1e9);
      }
      sample(out, "sluice_resource_rt_seconds_sum", s.resource(), total.rtSumNanos() / 1e9);
      sample(out, "sluice_resource_rt_seconds_count", s.resource(), total.timedCompletions());
    }
    family(out, "sluice_resource_concurrency", "gauge", "Calls admitted and not yet released");
    for (ResourceStatistics s : all) {
      sample(out, "sluice_resource_concurrency", s.resource(), Math.max(0, s.concurrency()));
    }
    return out.toString();
  }

  private static void family(StringBuilder out, String name, String type, String help) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  private static void sample(StringBuilder out, String name, String resource, double value) {
    out.append(name).append("{resource=\"");
    escape(out, resource);
    out.append("\"} ");
    number(out, value);
    out.append('\n');
  }

  private static void quantile(StringBuilder out, String resource, String q, double value) {
    out.append("sluice_resource_rt_seconds{resource=\"");
    escape(out, resource);
    out.append("\",quantile=\"").append(q).append("\"} ");
    number(out, value);
    out.append('\n');
  }

  private static void number(StringBuilder out, double value) {
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      out.append((long) value);
    } else {
      out.append(value);
    }
  }

  private static void escape(StringBuilder out, String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' || c == '"') {
        out.append('\\').append(c);
      } else if (c == '\n') {
        out.append("\\n");
      } else {
        out.append(c);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    thread.shutdownNow();
  }
}
