package io.sluice.bench.flow;

import com.alibaba.csp.sentinel.Entry;
import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.BlockException;
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
 * The blocked path: one QPS rule of 10 per second, so nearly every call is rejected. Sentinel
 * throws (and allocates) a {@code FlowException} per rejection; sluice-flow returns a negative
 * permit.
 *
 * <p>{@code java -jar sluice-bench/target/benchmarks.jar 'io.sluice.bench.flow.RejectingQpsRule'
 * -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dcsp.sentinel.log.dir=target/sentinel-logs")
public class RejectingQpsRuleBenchmark {

  static final String NAME = "GET /orders/{id}";
  static final int LIMIT = 10;

  @State(Scope.Benchmark)
  public static class Sluice {
    Resource resource;

    @Setup
    public void setUp() {
      resource = SluiceSetup.withQpsRule(SluiceSetup.registry(false), NAME, LIMIT);
    }
  }

  @State(Scope.Benchmark)
  public static class Sentinel {
    @Setup
    public void setUp() {
      SentinelSetup.qpsRules(List.of(NAME), LIMIT);
    }
  }

  @State(Scope.Benchmark)
  public static class Resilience4j {
    RateLimiter rateLimiter;

    @Setup
    public void setUp() {
      rateLimiter = Resilience4jSetup.rateLimiter(NAME, LIMIT);
    }
  }

  @Benchmark
  public long sluice(Sluice s) {
    long permit = s.resource.tryAcquire();
    s.resource.release(permit);
    return permit;
  }

  @Benchmark
  public Object sentinel(Sentinel s) {
    try {
      Entry entry = SphU.entry(NAME);
      entry.exit();
      return entry;
    } catch (BlockException blocked) {
      return blocked;
    }
  }

  @Benchmark
  public boolean resilience4jRateLimiter(Resilience4j s) {
    return s.rateLimiter.acquirePermission();
  }
}
