package io.sluice.bench.flow;

import com.alibaba.csp.sentinel.Entry;
import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.BlockException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.sluice.flow.Direction;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.Resource;
import io.sluice.flow.RuleKind;
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
 * Entry plus successful exit through a closed circuit breaker (error ratio 0.5 over 1 s), one
 * thread; Resilience4j with its default (count-based, synchronized) breaker.
 *
 * <p>{@code java -jar sluice-bench/target/benchmarks.jar 'io.sluice.bench.flow.ClosedBreaker' -prof
 * gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dcsp.sentinel.log.dir=target/sentinel-logs")
public class ClosedBreakerBenchmark {

  static final String NAME = "GET /orders/{id}";

  @State(Scope.Benchmark)
  public static class Sluice {
    Resource resource;

    @Setup
    public void setUp() {
      FlowRegistry registry = SluiceSetup.registry(false);
      registry.load(
          RuleKind.DEGRADE,
          "[{\"resource\":\""
              + NAME
              + "\",\"grade\":1,\"count\":0.5,\"timeWindow\":10,"
              + "\"minRequestAmount\":5,\"statIntervalMs\":1000}]");
      resource = registry.resource(NAME, Direction.INBOUND);
    }
  }

  @State(Scope.Benchmark)
  public static class Sentinel {
    @Setup
    public void setUp() {
      SentinelSetup.errorRatioBreaker(NAME);
    }
  }

  @State(Scope.Benchmark)
  public static class Resilience4j {
    CircuitBreaker breaker;

    @Setup
    public void setUp() {
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
  public boolean resilience4jBreaker(Resilience4j s) {
    return Resilience4jSetup.callThroughBreaker(s.breaker);
  }
}
