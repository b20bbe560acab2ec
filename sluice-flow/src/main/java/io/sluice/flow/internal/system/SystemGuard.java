package io.sluice.flow.internal.system;

import io.sluice.flow.SystemLoadSource;
import io.sluice.flow.internal.limit.SlidingWindowLimiter;
import io.sluice.flow.internal.rule.SystemRuleSpec;
import io.sluice.flow.internal.stats.LiveStatistics;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Adaptive protection of all inbound traffic, built from the loaded system rules (the strictest
 * value of each threshold wins, as in Sentinel).
 *
 * <ul>
 *   <li>{@code qps}: an exact {@link SlidingWindowLimiter} over all inbound admissions.
 *   <li>{@code maxThread}: inbound calls in flight, exact (increment, undo on reject).
 *   <li>{@code highestCpuUsage} and {@code avgRt}: not Sentinel's on/off switch (CPU sampled once a
 *       second, then every call blocked for the next second, then none: #1206). Each sample
 *       multiplies the admitted share of inbound calls by {@code threshold / measured} (CPU
 *       smoothed over two samples; the step limited to ×2 and ÷2), so admission settles where the
 *       measured value meets the threshold and recovers gradually. Calls are let through evenly by
 *       {@link AdmissionRatio}; at least {@value #MIN_RATIO} of them always pass, so the
 *       measurement never starves.
 *   <li>{@code highestSystemLoad}: while the load average is above it, inbound concurrency is
 *       capped at the measured capacity, max completions per second × min RT (Sentinel's BBR
 *       check).
 * </ul>
 *
 * <p>Samples are taken when an inbound call finds the sampling interval over (a CAS picks one
 * caller); the sample runs on the executor if there is one, else on that caller's thread.
 */
public final class SystemGuard {

  /** Outcomes of {@link #tryEnter}: 0 passes, the others name the threshold that blocked. */
  public static final int PASS = 0;

  public static final int BLOCKED_QPS = 1;
  public static final int BLOCKED_THREAD = 2;
  public static final int BLOCKED_RT = 3;
  public static final int BLOCKED_LOAD = 4;
  public static final int BLOCKED_CPU = 5;

  /** How often CPU, load and inbound RT are sampled. */
  public static final long SAMPLE_INTERVAL_NANOS = 1_000_000_000L;

  static final double MIN_RATIO = 0.01;
  private static final double MAX_STEP = 2.0;

  private final double highestLoad;
  private final double highestCpu;
  private final double qps;
  private final double avgRtMs;
  private final long maxThread;
  private final SystemRuleSpec merged;
  private final InboundTraffic traffic;
  private final SlidingWindowLimiter qpsLimiter;
  private final Controller controller;
  private final SystemLoadSource loadSource;
  private final Executor executor;

  private SystemGuard(
      SystemRuleSpec merged,
      InboundTraffic traffic,
      SlidingWindowLimiter qpsLimiter,
      Controller controller,
      SystemLoadSource loadSource,
      Executor executor) {
    this.merged = merged;
    this.highestLoad = merged.highestSystemLoad();
    this.highestCpu = merged.highestCpuUsage();
    this.qps = merged.qps();
    this.avgRtMs = merged.avgRt();
    this.maxThread = merged.maxThread();
    this.traffic = traffic;
    this.qpsLimiter = qpsLimiter;
    this.controller = controller;
    this.loadSource = loadSource;
    this.executor = executor;
  }

  /**
   * Builds the guard for {@code rules}, or returns null when no threshold is set. State that still
   * applies (the QPS limiter if {@code qps} did not change, the controller) carries over from
   * {@code previous}.
   */
  public static SystemGuard of(
      List<SystemRuleSpec> rules,
      SystemGuard previous,
      InboundTraffic traffic,
      SystemLoadSource loadSource,
      Executor executor) {
    SystemRuleSpec merged = merge(rules);
    if (merged == null) {
      return null;
    }
    SlidingWindowLimiter limiter = null;
    if (merged.qps() >= 0) {
      limiter =
          previous != null && previous.qps == merged.qps() && previous.qpsLimiter != null
              ? previous.qpsLimiter
              : SlidingWindowLimiter.forRate(merged.qps(), 1.0, SlidingWindowLimiter.MAX_BLOCKS);
    }
    Controller controller = previous != null ? previous.controller : new Controller();
    return new SystemGuard(merged, traffic, limiter, controller, loadSource, executor);
  }

  static SystemRuleSpec merge(List<SystemRuleSpec> rules) {
    double load = -1;
    double cpu = -1;
    double qps = -1;
    double rt = -1;
    long threads = -1;
    for (SystemRuleSpec r : rules) {
      load = strictest(load, r.highestSystemLoad());
      cpu = strictest(cpu, r.highestCpuUsage());
      qps = strictest(qps, r.qps());
      rt = strictest(rt, r.avgRt());
      threads = (long) strictest(threads, r.maxThread());
    }
    if (load < 0 && cpu < 0 && qps < 0 && rt < 0 && threads < 0) {
      return null;
    }
    return new SystemRuleSpec(load, cpu, qps, rt, threads);
  }

  private static double strictest(double current, double candidate) {
    if (candidate < 0) {
      return current;
    }
    return current < 0 ? candidate : Math.min(current, candidate);
  }

  /**
   * Whether inbound calls must all be timed: the average-RT and load thresholds read response
   * times; QPS, concurrency and CPU thresholds do not.
   */
  public boolean needsResponseTimes() {
    return avgRtMs >= 0 || highestLoad >= 0;
  }

  /** The merged thresholds. */
  public SystemRuleSpec merged() {
    return merged;
  }

  /** The current admitted share for the CPU and RT thresholds, in [0.01, 1]. */
  public double admissionRatio() {
    return controller.ratio.ratio();
  }

  /**
   * Decides on an inbound call at {@code now}. On {@link #PASS} the call counts in the inbound
   * traffic and must be released with {@link InboundTraffic#complete}; a caller that blocks the
   * call later must call {@link #undoEnter()}.
   */
  public int tryEnter(long now) {
    sampleIfDue(now);
    Controller c = controller;
    if (!c.ratio.isFull() && !c.ratio.admit()) {
      return c.limitedByRt ? BLOCKED_RT : BLOCKED_CPU;
    }
    long inFlight = traffic.enter();
    if (maxThread >= 0 && inFlight > maxThread) {
      traffic.undoEnter();
      return BLOCKED_THREAD;
    }
    if (highestLoad >= 0 && c.loadHigh && inFlight > 1 && inFlight > c.capacity) {
      traffic.undoEnter();
      return BLOCKED_LOAD;
    }
    if (qpsLimiter != null && !qpsLimiter.tryAcquire(now)) {
      traffic.undoEnter();
      return BLOCKED_QPS;
    }
    return PASS;
  }

  /** Counts an inbound call that every rule admitted in the inbound statistics. */
  public void recordPass(long now) {
    traffic.statistics().recordPass(now);
  }

  /** Undoes a {@link #PASS} whose call another rule then blocked. */
  public void undoEnter() {
    traffic.undoEnter();
  }

  /** Counts a blocked inbound call in the inbound statistics. */
  public void recordBlock(long now) {
    traffic.statistics().recordBlock(now);
  }

  /** Names the threshold behind a {@link #tryEnter} outcome. */
  public String describe(int outcome) {
    String what =
        switch (outcome) {
          case BLOCKED_QPS -> "inbound qps " + qps;
          case BLOCKED_THREAD -> "inbound maxThread " + maxThread;
          case BLOCKED_RT -> "inbound avgRt " + avgRtMs + " ms (admitting a share)";
          case BLOCKED_LOAD -> "system load " + highestLoad + " (concurrency above capacity)";
          case BLOCKED_CPU -> "cpu usage " + highestCpu + " (admitting a share)";
          default -> "?";
        };
    return merged.describe() + ": " + what;
  }

  private void sampleIfDue(long now) {
    Controller c = controller;
    long due = c.nextSampleAt.get();
    if (now < due || !c.nextSampleAt.compareAndSet(due, now + SAMPLE_INTERVAL_NANOS)) {
      return;
    }
    if (executor != null) {
      try {
        executor.execute(() -> sample(now));
        return;
      } catch (RejectedExecutionException ignored) {
        // Fall through and sample on this thread.
      }
    }
    sample(now);
  }

  /**
   * Takes one sample at {@code now} and updates the controller; the next automatic sample is due
   * one interval later. Public so tests (and schedulers) can drive sampling themselves.
   */
  public void sample(long now) {
    Controller c = controller;
    synchronized (c) {
      c.nextSampleAt.set(now + SAMPLE_INTERVAL_NANOS);
      double factor = MAX_STEP;
      boolean rtLimits = false;
      if (highestCpu >= 0) {
        double cpu = readCpu();
        if (cpu >= 0) {
          c.smoothedCpu = c.smoothedCpu < 0 ? cpu : (c.smoothedCpu + cpu) / 2;
          factor = Math.min(factor, highestCpu / Math.max(1e-6, c.smoothedCpu));
        }
      }
      LiveStatistics.SecondSummary second = traffic.statistics().lastSecondSummary(now);
      if (avgRtMs >= 0 && second.completed() > 0) {
        double avgMs = second.rtSumNanos() / 1e6 / second.completed();
        double rtFactor = avgRtMs / Math.max(1e-6, avgMs);
        if (rtFactor < factor) {
          factor = rtFactor;
          rtLimits = true;
        }
      }
      if (highestCpu >= 0 || avgRtMs >= 0) {
        factor = Math.max(1 / MAX_STEP, Math.min(MAX_STEP, factor));
        double next = Math.max(MIN_RATIO, Math.min(1, c.ratio.ratio() * factor));
        c.ratio.set(next);
        c.limitedByRt = rtLimits;
      } else {
        c.ratio.set(1);
      }
      if (highestLoad >= 0) {
        double load = readLoad();
        c.loadHigh = load > highestLoad;
        c.capacity =
            second.minRtNanos() < 0
                ? Double.MAX_VALUE
                : second.maxCompletedPerSecond() * (second.minRtNanos() / 1e9);
      } else {
        c.loadHigh = false;
      }
    }
  }

  private double readCpu() {
    try {
      return loadSource.cpuUsage();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private double readLoad() {
    try {
      return loadSource.loadAverage();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /** The controller's state; carried across rule reloads. Written under its own monitor. */
  static final class Controller {
    final AdmissionRatio ratio = new AdmissionRatio();
    final AtomicLong nextSampleAt = new AtomicLong(Long.MIN_VALUE);
    double smoothedCpu = -1;
    volatile boolean limitedByRt;
    volatile boolean loadHigh;
    volatile double capacity = Double.MAX_VALUE;
  }
}
