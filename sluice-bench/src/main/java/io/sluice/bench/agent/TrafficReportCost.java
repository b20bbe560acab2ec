package io.sluice.bench.agent;

import com.sun.net.httpserver.HttpServer;
import io.sluice.agent.logging.AgentLog;
import io.sluice.agent.reporting.TrafficReporter;
import io.sluice.agent.reporting.TrafficSender;
import io.sluice.agent.rules.ConfigCredentials;
import io.sluice.flow.Direction;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.Permit;
import io.sluice.flow.Resource;
import io.sluice.flow.RuleKind;
import io.sluice.flow.Ticker;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the agent's traffic reports cost the application: the CPU an application's JVM spends on
 * them per second (every thread but the stand-in server's; a second taken each second, a report
 * sent every {@code --every} seconds), and that cost spread over the requests of a second at a
 * given rate (issue 14's target: ≤ 1 µs per request).
 *
 * <p>Two phases, each against a real HTTP server in this JVM (its threads are not counted):
 *
 * <ul>
 *   <li><b>cadence</b>: one tick a second for {@code --seconds} of real time, as the agent runs
 *       them, the second half measured. Code run once a second is never hot, so this is the figure
 *       that matters;
 *   <li><b>hot</b>: {@code --hot} ticks back to back (seconds advanced by a fake clock), the floor
 *       the same code reaches once compiled.
 * </ul>
 *
 * <pre>
 * java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.agent.TrafficReportCost \
 *     --resources 20 --every 5 --seconds 300 --hot 2000 --rate 500
 * </pre>
 */
public final class TrafficReportCost {
  private TrafficReportCost() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = AgentOverheadDriver.parse(args);
    int resources = Integer.parseInt(options.getOrDefault("resources", "20"));
    int seconds = Integer.parseInt(options.getOrDefault("seconds", "120"));
    int hot = Integer.parseInt(options.getOrDefault("hot", "20000"));
    double rate = Double.parseDouble(options.getOrDefault("rate", "500"));
    int every = Integer.parseInt(options.getOrDefault("every", "5"));

    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    server.createContext(
        TrafficSender.PATH,
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          byte[] ok = "ok".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, ok.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(ok);
          }
        });
    server.start();
    String address = "127.0.0.1:" + server.getAddress().getPort();
    AgentLog log = AgentLog.toStream(new PrintStream(System.err, true), AgentLog.Level.WARN);
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    System.out.printf(
        Locale.ROOT,
        "traffic report cost: %d resources with a rule, a report every %d s, load %s%n",
        resources,
        every,
        loadAverage());

    // Cadence: the real clock, one report a second.
    FlowRegistry real = registry(System::nanoTime, resources);
    List<Resource> realResources = resources(real, resources);
    TrafficReporter reporter =
        new TrafficReporter(
            "bench",
            "1@bench",
            null,
            real,
            () -> seen(resources),
            () -> resources,
            new TrafficSender(List.of(address), ConfigCredentials.NONE),
            System::currentTimeMillis,
            every,
            log);
    long measureFrom = seconds / 2;
    long cpuAtStart = 0;
    long next = System.nanoTime();
    for (int s = 0; s < seconds; s++) {
      if (s == measureFrom) {
        cpuAtStart = cpuOutsideServer(threads);
      }
      long deadline = next + 1_000_000_000L;
      // Calls spread over the second, so every resource has a complete second to report.
      while (System.nanoTime() < deadline) {
        for (Resource r : realResources) {
          call(r);
        }
        Thread.sleep(50);
      }
      next = deadline;
      // The reporting thread's work: what the agent's scheduler runs just after each second.
      reporter.tick();
    }
    long cadenceCpu = cpuOutsideServer(threads) - cpuAtStart;
    // The calls above are the application's own; subtract them by measuring them alone.
    long callsCpu = callsOnlyCpu(threads, realResources, seconds - measureFrom);
    double perSecond = (cadenceCpu - callsCpu) / (double) (seconds - measureFrom);
    print("cadence, real seconds", perSecond, rate);

    // Hot: a fake clock, reports back to back.
    AtomicLong nanos = new AtomicLong(1_000_000_000L);
    AtomicLong wall = new AtomicLong(1_733_000_000_000L);
    FlowRegistry fake = registry(nanos::get, resources);
    List<Resource> fakeResources = resources(fake, resources);
    TrafficReporter hotReporter =
        new TrafficReporter(
            "bench",
            "1@bench",
            null,
            fake,
            () -> seen(resources),
            () -> resources,
            new TrafficSender(List.of(address), ConfigCredentials.NONE),
            wall::get,
            every,
            log);
    long hotStart = 0;
    for (int i = 0; i < hot; i++) {
      if (i == hot / 2) {
        hotStart = cpuOutsideServer(threads);
      }
      for (Resource r : fakeResources) {
        call(r);
      }
      nanos.addAndGet(1_000_000_000L);
      wall.addAndGet(1_000);
      hotReporter.tick();
    }
    double hotPerSecond = (cpuOutsideServer(threads) - hotStart) / (double) (hot - hot / 2);
    print("hot, back to back", hotPerSecond, rate);
    System.out.printf(Locale.ROOT, "load after %s%n", loadAverage());
    server.stop(0);
  }

  private static FlowRegistry registry(Ticker ticker, int resources) {
    FlowRegistry registry = FlowRegistry.builder().ticker(ticker).build();
    StringBuilder rules = new StringBuilder("[");
    for (int i = 0; i < resources; i++) {
      rules.append(i == 0 ? "" : ",");
      rules.append("{\"resource\":\"GET /r").append(i).append("\",\"grade\":1,\"count\":100000}");
    }
    registry.load(RuleKind.FLOW, rules.append(']').toString());
    return registry;
  }

  private static List<Resource> resources(FlowRegistry registry, int n) {
    List<Resource> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(registry.resource("GET /r" + i, Direction.INBOUND));
    }
    return out;
  }

  private static Map<String, String> seen(int n) {
    Map<String, String> names = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      names.put("GET /r" + i, "Spring MVC route");
    }
    return names;
  }

  private static void call(Resource r) {
    long permit = r.tryAcquire();
    if (Permit.isAdmitted(permit)) {
      r.release(permit);
    }
  }

  /** The CPU of the same calls without any report, over the same number of seconds. */
  private static long callsOnlyCpu(ThreadMXBean threads, List<Resource> resources, long seconds)
      throws InterruptedException {
    long start = cpuOutsideServer(threads);
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    while (System.nanoTime() < end) {
      for (Resource r : resources) {
        call(r);
      }
      Thread.sleep(50);
    }
    return cpuOutsideServer(threads) - start;
  }

  /** CPU nanoseconds of every live thread but the stand-in server's. */
  private static long cpuOutsideServer(ThreadMXBean threads) {
    long total = 0;
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info == null || info.getThreadName().startsWith("HTTP-Dispatcher")) {
        continue;
      }
      long cpu = threads.getThreadCpuTime(info.getThreadId());
      if (cpu > 0) {
        total += cpu;
      }
    }
    return total;
  }

  private static void print(String phase, double nanosPerSecond, double rate) {
    System.out.printf(
        Locale.ROOT,
        "%-22s %8.1f µs CPU per second; at %.0f requests/s: %.3f µs per request%n",
        phase,
        nanosPerSecond / 1_000,
        rate,
        nanosPerSecond / 1_000 / rate);
  }

  private static String loadAverage() throws IOException {
    String[] fields =
        java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ");
    return fields[0] + " " + fields[1] + " " + fields[2];
  }
}
