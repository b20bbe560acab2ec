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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Contention: 1, 2 and 4 threads on one shared resource with one QPS rule never reached. Times are
 * per call per thread; the machine has 2 cores, so 4 threads are oversubscribed.
 *
 * <p>{@code java -jar sluice-bench/target/benchmarks.jar 'io.sluice.bench.flow.SharedResource'
 * -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dcsp.sentinel.log.dir=target/sentinel-logs")
public class SharedResourceBenchmark {

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

  static long sluiceCall(Sluice s) {
    long permit = s.resource.tryAcquire();
    s.resource.release(permit);
    return permit;
  }

  static Object sentinelCall() throws BlockException {
    Entry entry = SphU.entry(NAME);
    entry.exit();
    return entry;
  }

  static boolean resilience4jCall(Resilience4j s) {
    return s.rateLimiter.acquirePermission() && Resilience4jSetup.callThroughBreaker(s.breaker);
  }

  @Benchmark
  @Threads(1)
  public long sluice1(Sluice s) {
    return sluiceCall(s);
  }

  @Benchmark
  @Threads(2)
  public long sluice2(Sluice s) {
    return sluiceCall(s);
  }

  @Benchmark
  @Threads(4)
  public long sluice4(Sluice s) {
    return sluiceCall(s);
  }

  @Benchmark
  @Threads(1)
  public Object sentinel1(Sentinel s) throws BlockException {
    return sentinelCall();
  }

  @Benchmark
  @Threads(2)
  public Object sentinel2(Sentinel s) throws BlockException {
    return sentinelCall();
  }

  @Benchmark
  @Threads(4)
  public Object sentinel4(Sentinel s) throws BlockException {
    return sentinelCall();
  }

  @Benchmark
  @Threads(1)
  public boolean resilience4j1(Resilience4j s) {
    return resilience4jCall(s);
  }

  @Benchmark
  @Threads(2)
  public boolean resilience4j2(Resilience4j s) {
    return resilience4jCall(s);
  }

  @Benchmark
  @Threads(4)
  public boolean resilience4j4(Resilience4j s) {
    return resilience4jCall(s);
  }
}
