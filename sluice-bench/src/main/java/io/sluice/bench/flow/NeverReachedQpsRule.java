package io.sluice.bench.flow;

import com.alibaba.csp.sentinel.Entry;
import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.BlockException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.sluice.flow.Resource;
import java.util.List;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One resource under one QPS rule that is never reached (1e9 per second), set up for each library,
 * and the call each library's user makes through it: the fixture {@link OneQpsRuleBenchmark} and
 * {@link SharedResourceBenchmark} measure with one and with several threads.
 */
public final class NeverReachedQpsRule {
  static final String NAME = "GET /orders/{id}";
  static final int NEVER_REACHED = 1_000_000_000;

  private NeverReachedQpsRule() {}

  @State(Scope.Benchmark)
  public static class Sluice {
    Resource resource;

    @Setup
    public void setUp() {
      resource = SluiceSetup.withQpsRule(SluiceSetup.registry(false), NAME, NEVER_REACHED);
    }
  }

  @State(Scope.Benchmark)
  public static class Sentinel {
    @Setup
    public void setUp() {
      SentinelSetup.qpsRules(List.of(NAME), NEVER_REACHED);
    }
  }

  @State(Scope.Benchmark)
  public static class Resilience4j {
    RateLimiter rateLimiter;
    CircuitBreaker breaker;

    @Setup
    public void setUp() {
      rateLimiter = Resilience4jSetup.rateLimiter(NAME, NEVER_REACHED);
      breaker = Resilience4jSetup.circuitBreaker(NAME);
    }
  }

  /** sluice-flow: acquire and release on the resource handle. */
  static long sluiceCall(Sluice s) {
    long permit = s.resource.tryAcquire();
    s.resource.release(permit);
    return permit;
  }

  /** Sentinel: entry and exit by name. */
  static Object sentinelCall() throws BlockException {
    Entry entry = SphU.entry(NAME);
    entry.exit();
    return entry;
  }

  /** Resilience4j: the rate limiter, then a call through the circuit breaker. */
  static boolean resilience4jCall(Resilience4j s) {
    return s.rateLimiter.acquirePermission() && Resilience4jSetup.callThroughBreaker(s.breaker);
  }
}
