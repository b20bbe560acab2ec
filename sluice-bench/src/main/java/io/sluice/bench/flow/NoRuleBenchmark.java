package io.sluice.bench.flow;

import com.alibaba.csp.sentinel.Entry;
import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.BlockException;
import io.sluice.flow.Direction;
import io.sluice.flow.Resource;
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
 * Entry plus exit on a resource no rule applies to. sluice-flow returns at once by default; with
 * {@code statisticsForAllResources} it records statistics like Sentinel always does.
 *
 * <p>{@code java -jar sluice-bench/target/benchmarks.jar 'io.sluice.bench.flow.NoRule' -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dcsp.sentinel.log.dir=target/sentinel-logs")
public class NoRuleBenchmark {

  @State(Scope.Benchmark)
  public static class Sluice {
    Resource plain;
    Resource recording;

    @Setup
    public void setUp() {
      plain = SluiceSetup.registry(false).resource("GET /orders/{id}", Direction.INBOUND);
      recording = SluiceSetup.registry(true).resource("GET /orders/{id}", Direction.INBOUND);
    }
  }

  @Benchmark
  public long sluice(Sluice s) {
    long permit = s.plain.tryAcquire();
    s.plain.release(permit);
    return permit;
  }

  @Benchmark
  public long sluiceWithStatistics(Sluice s) {
    long permit = s.recording.tryAcquire();
    s.recording.release(permit);
    return permit;
  }

  @Benchmark
  public Object sentinel() throws BlockException {
    Entry entry = SphU.entry("GET /orders/{id}");
    entry.exit();
    return entry;
  }
}
