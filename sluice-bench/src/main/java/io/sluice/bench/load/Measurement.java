package io.sluice.bench.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The measurement window of one scenario: at {@link #begin} it clears the recorded latencies and
 * reads the server's and the driver's CPU time (and their compiler threads' part of it); at {@link
 * #end} it reads them again, with the server's RSS and thread count, and keeps what was recorded in
 * between.
 */
final class Measurement {
  private final ProcessProbe server;
  private final ProcessProbe driver = ProcessProbe.self();
  private final Map<String, LatencyStats> stats;
  private ProcessProbe.Sample serverBefore;
  private ProcessProbe.Sample driverBefore;
  private final List<Runnable> onBegin = new ArrayList<>();
  private long startNanos;

  /**
   * @param server the server's process, or null when its PID was not given
   * @param stats the quantities measured, by name; the first is the scenario's main one
   */
  Measurement(ProcessProbe server, Map<String, LatencyStats> stats) {
    this.server = server;
    this.stats = stats;
  }

  /** Runs {@code action} when the window opens, such as resetting a scenario's own counters. */
  Measurement onBegin(Runnable action) {
    onBegin.add(action);
    return this;
  }

  void begin() {
    stats.values().forEach(LatencyStats::reset);
    onBegin.forEach(Runnable::run);
    serverBefore = server == null ? null : server.sample();
    driverBefore = driver.sample();
    startNanos = System.nanoTime();
  }

  Window end() {
    long elapsed = System.nanoTime() - startNanos;
    Map<String, LatencyStats.Snapshot> snapshots = new java.util.LinkedHashMap<>();
    stats.forEach((name, s) -> snapshots.put(name, s.snapshot()));
    ProcessProbe.Sample serverAfter = server == null ? null : server.sample();
    ProcessProbe.Sample driverAfter = driver.sample();
    return new Window(
        elapsed / 1e9,
        snapshots,
        serverAfter == null ? Double.NaN : serverAfter.cpuSecondsSince(serverBefore),
        serverAfter == null ? Double.NaN : serverAfter.jitSecondsSince(serverBefore),
        serverAfter == null ? -1 : serverAfter.rssBytes(),
        serverAfter == null ? -1 : serverAfter.threads(),
        driverAfter.cpuSecondsSince(driverBefore),
        driverAfter.jitSecondsSince(driverBefore));
  }

  /**
   * What one window measured. The JIT seconds are the part of the CPU seconds the JVM's compiler
   * threads spent: a window taken while a process still compiles measures its JIT as much as its
   * work, and a slow client (the official one) spreads its server's compiling over fewer calls.
   */
  record Window(
      double seconds,
      Map<String, LatencyStats.Snapshot> stats,
      double serverCpuSeconds,
      double serverJitSeconds,
      long serverRssBytes,
      int serverThreads,
      double driverCpuSeconds,
      double driverJitSeconds) {
    LatencyStats.Snapshot main() {
      return new ArrayList<>(stats.values()).get(0);
    }

    List<String> names() {
      return List.copyOf(stats.keySet());
    }
  }
}
