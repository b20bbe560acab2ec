package io.sluice.bench.flow;

import com.alibaba.csp.sentinel.Entry;
import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.BlockException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.sluice.flow.Direction;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.Resource;
import io.sluice.flow.RuleKind;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * CPU time per call on one thread: the measure the reference figures use, and one that a
 * shared, busy machine disturbs far less than wall time (a preempted thread burns no CPU time).
 * Runs one library and scenario per JVM, warms up, then reports the median of several rounds. JMH
 * ({@code *Benchmark} in this package) stays the primary measurement.
 *
 * <p>{@code java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.flow.CpuTimePerCall sluice
 * one-qps-rule} — libraries {@code sluice}, {@code sluice-stats} (statistics for all resources),
 * {@code sentinel}, {@code r4j}; scenarios {@code no-rule}, {@code one-qps-rule}, {@code
 * rejecting}, {@code breaker}.
 */
public final class CpuTimePerCall {

  private static final String NAME = "GET /orders/{id}";
  private static final int NEVER_REACHED = 1_000_000_000;

  private CpuTimePerCall() {}

  public static void main(String[] args) {
    String library = args[0];
    String scenario = args[1];
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 7;
    System.setProperty("csp.sentinel.log.dir", "target/sentinel-logs");
    LongSupplier call = call(library, scenario);
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long sink = 0;
    int batch = 2_000_000;
    for (int i = 0; i < 5; i++) {
      for (int k = 0; k < batch; k++) {
        sink += call.getAsLong();
      }
    }
    double[] nanosPerCall = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      long cpu = threads.getCurrentThreadCpuTime();
      for (int k = 0; k < batch; k++) {
        sink += call.getAsLong();
      }
      nanosPerCall[r] = (threads.getCurrentThreadCpuTime() - cpu) / (double) batch;
    }
    double[] sorted = nanosPerCall.clone();
    Arrays.sort(sorted);
    System.out.printf(
        Locale.ROOT,
        "%-13s %-13s median %7.1f ns CPU/call  rounds %s  (%d)%n",
        library,
        scenario,
        sorted[rounds / 2],
        Arrays.toString(Arrays.stream(nanosPerCall).map(v -> Math.round(v * 10) / 10.0).toArray()),
        sink & 1);
  }

  private static LongSupplier call(String library, String scenario) {
    return switch (library) {
      case "sluice", "sluice-stats" -> sluice(scenario, library.equals("sluice-stats"));
      case "sentinel" -> sentinel(scenario);
      case "r4j" -> resilience4j(scenario);
      default -> throw new IllegalArgumentException("unknown library " + library);
    };
  }

  private static LongSupplier sluice(String scenario, boolean statisticsForAll) {
    FlowRegistry registry = SluiceSetup.registry(statisticsForAll);
    switch (scenario) {
      case "one-qps-rule" -> SluiceSetup.withQpsRule(registry, NAME, NEVER_REACHED);
      case "rejecting" -> SluiceSetup.withQpsRule(registry, NAME, 10);
      case "breaker" ->
          registry.load(
              RuleKind.DEGRADE,
              "[{\"resource\":\""
                  + NAME
                  + "\",\"grade\":1,\"count\":0.5,\"timeWindow\":10,\"minRequestAmount\":5}]");
      case "no-rule" -> {}
      default -> throw new IllegalArgumentException(scenario);
    }
    Resource resource = registry.resource(NAME, Direction.INBOUND);
    return () -> {
      long permit = resource.tryAcquire();
      resource.release(permit);
      return permit;
    };
  }

  private static LongSupplier sentinel(String scenario) {
    switch (scenario) {
      case "one-qps-rule" -> SentinelSetup.qpsRules(List.of(NAME), NEVER_REACHED);
      case "rejecting" -> SentinelSetup.qpsRules(List.of(NAME), 10);
      case "breaker" -> SentinelSetup.errorRatioBreaker(NAME);
      case "no-rule" -> {}
      default -> throw new IllegalArgumentException(scenario);
    }
    return () -> {
      try {
        Entry entry = SphU.entry(NAME);
        entry.exit();
        return 1;
      } catch (BlockException blocked) {
        return 0;
      }
    };
  }

  private static LongSupplier resilience4j(String scenario) {
    RateLimiter limiter =
        Resilience4jSetup.rateLimiter(NAME, scenario.equals("rejecting") ? 10 : NEVER_REACHED);
    CircuitBreaker breaker = Resilience4jSetup.circuitBreaker(NAME);
    return switch (scenario) {
      case "one-qps-rule" ->
          () ->
              limiter.acquirePermission() && Resilience4jSetup.callThroughBreaker(breaker) ? 1 : 0;
      case "rejecting" -> () -> limiter.acquirePermission() ? 1 : 0;
      case "breaker" -> () -> Resilience4jSetup.callThroughBreaker(breaker) ? 1 : 0;
      default -> throw new IllegalArgumentException(scenario);
    };
  }
}
