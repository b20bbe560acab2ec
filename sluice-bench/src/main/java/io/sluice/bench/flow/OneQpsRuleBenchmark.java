package io.sluice.bench.flow;

import com.alibaba.csp.sentinel.Entry;
import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.BlockException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.sluice.flow.Resource;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Entry plus exit under one QPS rule that is never reached (1e9 per second), one thread.
 * Resilience4j is measured with its rate limiter alone and with a circuit breaker added (the
 * decorator pair an application would use for the same protection).
 *
 * <p>{@code java -jar sluice-bench/target/benchmarks.jar 'io.sluice.bench.flow.OneQpsRule' -prof
 * gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dcsp.sentinel.log.dir=target/sentinel-logs")
public class OneQpsRuleBenchmark {

  static final String NAME = "GET /orders/{id}";
  static final int NEVER_REACHED = 1_000_000_000;

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

  @Benchmark
  public long sluice(Sluice s) {
    long permit = s.resource.tryAcquire();
    s.resource.release(permit);
    return permit;
  }

  @Benchmark
  public Object sentinel(Sentinel s) throws BlockException {
    Entry entry = SphU.entry(NAME);
    entry.exit();
    return entry;
  }

  @Benchmark
  public boolean resilience4jRateLimiter(Resilience4j s) {
    return s.rateLimiter.acquirePermission();
  }

  @Benchmark
  public boolean resilience4jRateLimiterAndBreaker(Resilience4j s) {
    return s.rateLimiter.acquirePermission() && Resilience4jSetup.callThroughBreaker(s.breaker);
  }
}
