package io.sluice.server.protocol.http;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.metrics.OperationMeter;
import io.sluice.server.metrics.ServerMetrics;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Route;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Times every HTTP request from the moment the port sees it until its response ends, into the meter
 * of its route ({@code GET /nacos/v1/cs/configs}); a path no route serves goes to {@code other}, so
 * clients cannot make meters.
 *
 * <p>Cost per request, on the event loop: two clock reads, a lookup of the connection's timer and
 * of the route's meter in maps that never change while serving (no allocation, no lock), and the
 * meter's {@link java.util.concurrent.atomic.LongAdder} increments. Each HTTP/1 connection has one
 * timer, made when it opens, which serves its requests one after the other; a request that finds
 * its connection's timer busy (HTTP/2 streams, pipelining) gets a timer of its own, the only case
 * that allocates.
 *
 * <p>Concurrency: a connection's timer is used only on the connection's event loop (the port runs
 * in strict thread mode); the route table is written once, before the port listens.
 */
final class RequestTiming {
  private final ServerClock clock;
  private final ServerMetrics metrics;
  private final OperationMeter other;
  private final Map<HttpConnection, Timer> timers = new ConcurrentHashMap<>();
  private volatile Map<String, Map<String, OperationMeter>> routes = Map.of();

  RequestTiming(ServerClock clock, ServerMetrics metrics) {
    this.clock = clock;
    this.metrics = metrics;
    this.other = metrics.operation("http", ServerMetrics.OTHER);
  }

  /** Makes a meter for each method and exact path the router serves; called before listening. */
  void index(List<Route> mounted) {
    Map<String, Map<String, OperationMeter>> byPath = new HashMap<>();
    for (Route route : mounted) {
      String path = route.getPath();
      if (path == null
          || route.isRegexPath()
          || path.contains("*")
          || path.contains(":")
          || route.methods() == null) {
        continue;
      }
      for (HttpMethod method : route.methods()) {
        byPath
            .computeIfAbsent(path, p -> new HashMap<>())
            .computeIfAbsent(
                method.name(), m -> metrics.operation("http", method.name() + " " + path));
      }
    }
    byPath.replaceAll((path, byMethod) -> Map.copyOf(byMethod));
    routes = Map.copyOf(byPath);
  }

  /** Makes a meter for a request taken before the router, {@code "METHOD /path"}. */
  void indexDirect(String operation) {
    int space = operation.indexOf(' ');
    String method = operation.substring(0, space);
    String path = operation.substring(space + 1);
    Map<String, Map<String, OperationMeter>> byPath = new HashMap<>(routes);
    Map<String, OperationMeter> byMethod = new HashMap<>(byPath.getOrDefault(path, Map.of()));
    byMethod.put(method, metrics.operation("http", operation));
    byPath.put(path, Map.copyOf(byMethod));
    routes = Map.copyOf(byPath);
  }

  void opened(HttpConnection connection) {
    timers.put(connection, new Timer());
  }

  void closed(HttpConnection connection) {
    timers.remove(connection);
  }

  /** Starts timing {@code request}; its meter records when the response ends. */
  void start(HttpServerRequest request) {
    OperationMeter meter = meterOf(request);
    Timer timer = request.version() == HttpVersion.HTTP_2 ? null : timers.get(request.connection());
    if (timer == null || timer.request != null) {
      timer = new Timer();
    }
    timer.request = request;
    timer.meter = meter;
    timer.startNanos = clock.nanoTime();
    // The response's one end handler is this timer's (HeaderTimeout uses the body end handler).
    request.response().endHandler(timer);
  }

  private OperationMeter meterOf(HttpServerRequest request) {
    String path = request.path();
    Map<String, OperationMeter> byMethod = path == null ? null : routes.get(path);
    if (byMethod == null) {
      return other;
    }
    OperationMeter meter = byMethod.get(request.method().name());
    return meter == null ? other : meter;
  }

  /** One request being timed; reused by the next request on its connection once it ended. */
  private final class Timer implements Handler<Void> {
    HttpServerRequest request; // null while free
    OperationMeter meter;
    long startNanos;

    @Override
    public void handle(Void ended) {
      HttpServerRequest done = request;
      request = null;
      if (done != null) {
        meter.record(clock.nanoTime() - startNanos, done.response().getStatusCode() >= 500);
      }
    }
  }
}
