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
