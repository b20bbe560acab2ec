package io.sluice.bench.flow;

import static io.sluice.bench.flow.NeverReachedQpsRule.resilience4jCall;
import static io.sluice.bench.flow.NeverReachedQpsRule.sentinelCall;
import static io.sluice.bench.flow.NeverReachedQpsRule.sluiceCall;

import com.alibaba.csp.sentinel.slots.block.BlockException;
import io.sluice.bench.flow.NeverReachedQpsRule.Resilience4j;
import io.sluice.bench.flow.NeverReachedQpsRule.Sentinel;
import io.sluice.bench.flow.NeverReachedQpsRule.Sluice;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
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

  @Benchmark
  public long sluice(Sluice s) {
    return sluiceCall(s);
  }

  @Benchmark
  public Object sentinel(Sentinel s) throws BlockException {
    return sentinelCall();
  }

  @Benchmark
  public boolean resilience4jRateLimiter(Resilience4j s) {
    return s.rateLimiter.acquirePermission();
  }

  @Benchmark
  public boolean resilience4jRateLimiterAndBreaker(Resilience4j s) {
    return resilience4jCall(s);
  }
}
