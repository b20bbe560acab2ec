package io.sluice.bench.metrics;

import io.sluice.server.metrics.OperationMeter;
import io.sluice.server.metrics.ServerMetrics;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What sluice-server's request metrics cost per request: recording one request's duration into its
 * operation's meter (a histogram of {@code LongAdder}s), as the gRPC router and the HTTP port do,
 * with the two clock reads that bracket a request, on one thread and on two contending threads (the
 * two event loops of a 2-core server recording into the same operation).
 *
 * <p>{@code java -jar sluice-bench/target/benchmarks.jar 'io.sluice.bench.metrics' -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class OperationMeterBenchmark {
  private final OperationMeter meter = new ServerMetrics().operation("grpc", "ConfigQueryRequest");

  @Benchmark
  public void recordOneRequest() {
    long start = System.nanoTime();
    meter.record(System.nanoTime() - start + 180_000, false);
  }

  @Benchmark
  @Threads(2)
  public void recordOneRequestOnTwoThreads() {
    long start = System.nanoTime();
    meter.record(System.nanoTime() - start + 180_000, false);
  }

  /** The two clock reads alone, to subtract. */
  @Benchmark
  public long clockReadsAlone() {
    long start = System.nanoTime();
    return System.nanoTime() - start;
  }
}
