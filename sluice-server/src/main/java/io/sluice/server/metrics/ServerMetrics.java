package io.sluice.server.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The server's own metrics, as Prometheus scrapes them at {@code /nacos/actuator/prometheus}:
 * requests and their durations per protocol and operation, and whatever the parts register to be
 * read at scrape time (connections, pushes, held polls, configs, instances, the store's commit
 * latency, the JVM).
 *
 * <p>Invariants: the set of operations is fixed by the code, never by what clients send: meters are
 * made when handlers are registered and routes mounted, at most {@value #MAX_OPERATIONS} of them,
 * and requests for anything else (an unknown gRPC type, a path no route serves) share one {@code
 * other} meter per protocol. Recording is a field read and {@link
 * java.util.concurrent.atomic.LongAdder} increments on the caller's thread; only scrapes walk the
 * meters, off the event loops.
 *
 * <p>Concurrency: meters are made under this object's lock (at start-up); {@link #scrape} may run
 * on any thread at any time and reads the meters without stopping their writers.
 */
public final class ServerMetrics {
  public static final int MAX_OPERATIONS = 1_000;

  /** The operation name shared by requests no handler or route claims. */
  public static final String OTHER = "other";

  /** Reads some of the server's state at scrape time and writes it as families. */
  @FunctionalInterface
  public interface Collector {
    void collect(PrometheusText out);
  }

  private final Map<String, OperationMeter> operations = new LinkedHashMap<>(); // guarded by this
  private final List<Collector> collectors = new CopyOnWriteArrayList<>();

  /**
   * The meter of one operation, made when its handler is registered (never per request: this takes
   * a lock) and shared afterwards; past {@value #MAX_OPERATIONS} operations, the protocol's {@code
   * other} meter.
   */
  public synchronized OperationMeter operation(String protocol, String operation) {
    String key = protocol + ' ' + operation;
    OperationMeter meter = operations.get(key);
    if (meter != null) {
      return meter;
    }
    if (operations.size() >= MAX_OPERATIONS && !OTHER.equals(operation)) {
      return operation(protocol, OTHER);
    }
    meter = new OperationMeter(protocol, operation);
    operations.put(key, meter);
    return meter;
  }

  /** Adds families read at every scrape, written after the ones registered before. */
  public void register(Collector collector) {
    collectors.add(collector);
  }

  /** The whole exposition, in Prometheus's text format. */
  public String scrape() {
    List<OperationMeter> meters;
    synchronized (this) {
      meters = new ArrayList<>(operations.values());
    }
    StringBuilder text = new StringBuilder(16 * 1024);
    PrometheusText out = new PrometheusText(text);
    out.family(
        "sluice_request_duration_seconds",
        "histogram",
        "Requests served, by protocol and operation (gRPC request type, or HTTP method and route),"
            + " and how long the server took to answer them");
    for (OperationMeter m : meters) {
      out.histogram(
          "sluice_request_duration_seconds",
          m.durations,
          "protocol",
          m.protocol,
          "operation",
          m.operation);
    }
    out.family(
        "sluice_request_failures_total",
        "counter",
        "Requests the server failed (HTTP 5xx, a gRPC response that is not a success)");
    for (OperationMeter m : meters) {
      out.sample(
          "sluice_request_failures_total",
          m.failures.sum(),
          "protocol",
          m.protocol,
          "operation",
          m.operation);
    }
    for (Collector collector : collectors) {
      collector.collect(out);
    }
    return text.toString();
  }
}
