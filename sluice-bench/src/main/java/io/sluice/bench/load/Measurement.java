package io.sluice.bench.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The warm-up and the measurement window of one scenario: {@link #warmUp} waits out the warm-up
 * (and, if asked, the JVMs' compilers, see {@link Warmup}); at {@link #begin} it clears the
 * recorded latencies and reads the server's and the driver's CPU time (and their compiler threads'
 * part of it) and the server's thread wake-ups; at {@link #end} it reads them again, with the
 * server's RSS and thread count, and keeps what was recorded in between.
 */
final class Measurement {
  private final ProcessProbe server;
  private final ProcessProbe driver = ProcessProbe.self();
  private final Map<String, LatencyStats> stats;
  private ProcessProbe.Sample serverBefore;
  private ProcessProbe.Sample driverBefore;
  private final List<Runnable> onBegin = new ArrayList<>();
  private long startNanos;
  private double warmupSeconds = Double.NaN;

  /** Whether both JVMs' compilers were quiet when the window opened; null when not checked. */
  private Boolean jitSettled;

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

  /**
   * Waits {@code warmup.minimum()}; then, unless its settle bound is zero, looks at the driver's
   * and the server's compiler threads over {@link Warmup#STEP} (the minimum's last step first) and
   * waits a step more while either is busy, up to the bound.
   */
  void warmUp(Warmup warmup) throws InterruptedException {
    long started = System.nanoTime();
    if (warmup.settleMax().isZero()) {
      Thread.sleep(warmup.minimum().toMillis());
      warmupSeconds = (System.nanoTime() - started) / 1e9;
      return;
    }
    long step = Warmup.STEP.toNanos();
    long deadline = started + warmup.minimum().toNanos() + warmup.settleMax().toNanos();
    TimeUnit.NANOSECONDS.sleep(Math.max(0, warmup.minimum().toNanos() - step));
    ProcessProbe.Sample serverAt = server == null ? null : server.sample();
    ProcessProbe.Sample driverAt = driver.sample();
    long at = System.nanoTime();
    while (true) {
      TimeUnit.NANOSECONDS.sleep(step);
      ProcessProbe.Sample serverNow = server == null ? null : server.sample();
      ProcessProbe.Sample driverNow = driver.sample();
      long now = System.nanoTime();
      double seconds = (now - at) / 1e9;
      boolean quiet =
          Warmup.quiet(driverNow.jitSecondsSince(driverAt), seconds)
              && (serverNow == null || Warmup.quiet(serverNow.jitSecondsSince(serverAt), seconds));
      if (quiet || now + step > deadline) {
        jitSettled = quiet;
        break;
      }
      serverAt = serverNow;
      driverAt = driverNow;
      at = now;
    }
    warmupSeconds = (System.nanoTime() - started) / 1e9;
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
        serverAfter == null ? -1 : serverAfter.wakeupsSince(serverBefore),
        driverAfter.cpuSecondsSince(driverBefore),
        driverAfter.jitSecondsSince(driverBefore),
        warmupSeconds,
        jitSettled);
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
      long serverWakeups,
      double driverCpuSeconds,
      double driverJitSeconds,
      double warmupSeconds,
      Boolean jitSettled) {
    LatencyStats.Snapshot main() {
      return new ArrayList<>(stats.values()).get(0);
    }

    List<String> names() {
      return List.copyOf(stats.keySet());
    }
  }
}
