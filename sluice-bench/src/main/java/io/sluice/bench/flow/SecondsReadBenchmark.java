package io.sluice.bench.flow;

import io.sluice.flow.Direction;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.Permit;
import io.sluice.flow.Resource;
import io.sluice.flow.RuleKind;
import io.sluice.flow.SecondCounts;
import io.sluice.flow.SecondsReader;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What the agent's traffic reporter asks of sluice-flow once a second: {@link
 * FlowRegistry#readSeconds} of the second just completed, over {@code resources} resources of which
 * {@code active} had calls in it (the others idle since long before). The calls themselves are made
 * in the invocation's set-up on a fake clock, so the figure is the read alone, compiled; the
 * reporter's thread runs it interpreted (see {@code io.sluice.bench.agent.TrafficReportCost}). With
 * {@code -prof gc}: the allocation per read does not grow with the resources (three small arrays
 * and one view per read).
 *
 * <p>{@code java -jar sluice-bench/target/benchmarks.jar 'io.sluice.bench.flow.SecondsRead' -prof
 * gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class SecondsReadBenchmark {

  @Param({"20", "200"})
  public int resources;

  @Param({"20"})
  public int active;

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private FlowRegistry registry;
  private Resource[] handles;
  private long lastRead;

  @Setup
  public void setUp() {
    registry = FlowRegistry.builder().ticker(nanos::get).build();
    StringBuilder rules = new StringBuilder("[");
    for (int i = 0; i < resources; i++) {
      rules.append(i == 0 ? "" : ",").append("{\"resource\":\"GET /r").append(i);
      rules.append("\",\"grade\":1,\"count\":1000000}");
    }
    registry.load(RuleKind.FLOW, rules.append(']').toString());
    handles = new Resource[resources];
    for (int i = 0; i < resources; i++) {
      handles[i] = registry.resource("GET /r" + i, Direction.INBOUND);
      call(handles[i]); // every resource has had calls once
    }
    nanos.addAndGet(10_000_000_000L);
    lastRead = registry.clockNanos() / 1_000_000_000L - 1;
  }

  /** A second of calls on the active resources, spread over its 100 ms ticks. */
  @Setup(Level.Invocation)
  public void aSecondOfCalls() {
    for (int tick = 0; tick < 10; tick++) {
      for (int i = 0; i < Math.min(active, resources); i++) {
        call(handles[i]);
      }
      nanos.addAndGet(100_000_000L);
    }
  }

  private static void call(Resource r) {
    long permit = r.tryAcquire();
    if (Permit.isAdmitted(permit)) {
      r.release(permit);
    }
  }

  @Benchmark
  public long readTheLastSecond(Blackhole bh) {
    lastRead =
        registry.readSeconds(
            lastRead,
            new SecondsReader() {
              @Override
              public void beginSecond(long second) {
                bh.consume(second);
              }

              @Override
              public void resource(SecondCounts c) {
                bh.consume(c.passed() + c.p99Nanos());
              }
            });
    return lastRead;
  }
}
