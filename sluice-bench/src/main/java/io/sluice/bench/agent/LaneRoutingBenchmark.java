package io.sluice.bench.agent;

import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.governance.FlowGovernor;
import io.sluice.agent.governance.LaneGovernance;
import io.sluice.agent.logging.AgentLog;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.lane.LaneDocument;
import io.sluice.flow.lane.Lanes;
import io.sluice.flow.lane.RequestReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.cloud.client.DefaultServiceInstance;
import org.springframework.cloud.client.ServiceInstance;

/**
 * What lane routing adds to a load-balanced call, per request: the call the Spring Cloud
 * LoadBalancer advice makes ({@code laneInstances}) with an instance list the balancer already
 * holds (three base instances and a gray one, real {@code DefaultServiceInstance}s with their
 * metadata), for a gray request, an untagged one and a gray request to a service without gray
 * instances (fallback to base); and the entry decision of a 50 % lane. The lookup is precomputed
 * per instance list, so each of these must allocate nothing; check with the allocation profiler:
 *
 * <pre>
 * java -jar sluice-bench/target/benchmarks.jar LaneRoutingBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LaneRoutingBenchmark {
  private FlowGovernor governor;
  private List<ServiceInstance> withGray;
  private List<ServiceInstance> baseOnly;
  private SluiceContext gray;
  private Lanes halfLane;
  private final Object request = new Object();
  private final RequestReader<Object> noValues =
      new RequestReader<>() {
        @Override
        public String header(Object r, String name) {
          return null;
        }

        @Override
        public String cookie(Object r, String name) {
          return null;
        }

        @Override
        public String query(Object r, String name) {
          return null;
        }
      };

  @Setup
  public void setUp() throws Exception {
    AgentLog log = AgentLog.toStream(System.err, AgentLog.Level.WARN);
    governor =
        new FlowGovernor(
            FlowRegistry.builder().build(),
            FlowGovernor.verdicts(429, 503, 1),
            name -> {},
            new LaneGovernance(null, log),
            log);
    withGray = new ArrayList<>();
    baseOnly = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      withGray.add(instance("b", 20000 + i, Map.of("preserved.register.source", "SPRING_CLOUD")));
      baseOnly.add(instance("c", 30000 + i, Map.of("preserved.register.source", "SPRING_CLOUD")));
    }
    withGray.add(instance("b", 20009, Map.of("sluice.lane", "gray")));
    gray = SluiceContext.of(null, "gray");
    halfLane =
        LaneDocument.parse("{\"lanes\":[{\"name\":\"half\",\"tag\":\"gray\",\"percentage\":50}]}");
  }

  private static ServiceInstance instance(String service, int port, Map<String, String> metadata) {
    return new DefaultServiceInstance(
        service + "-" + port, service, "127.0.0.1", port, false, metadata);
  }

  /**
   * The benchmark thread serving a gray request for the whole trial: the context is set once, as
   * the servlet hook sets it once per request, so the figures show the routing alone.
   */
  @State(Scope.Thread)
  public static class InGrayRequest {
    SluiceContext.Scope scope;

    @Setup(Level.Trial)
    public void enter() {
      scope = SluiceContext.attach(SluiceContext.of(null, "gray"));
    }

    @TearDown(Level.Trial)
    public void exit() {
      scope.close();
    }
  }

  /** A gray request: the one gray instance. */
  @Benchmark
  public List<?> grayRequest(InGrayRequest request) {
    return governor.laneInstances(withGray);
  }

  /** An untagged request: the three base instances, never the gray one. */
  @Benchmark
  public List<?> untaggedRequest() {
    return governor.laneInstances(withGray);
  }

  /** A gray request to a service without gray instances: its base instances. */
  @Benchmark
  public List<?> grayRequestFallingBack(InGrayRequest request) {
    return governor.laneInstances(baseOnly);
  }

  /** The entry decision of a 50 % lane (one random draw). */
  @Benchmark
  public String entryOfAFiftyPercentLane() {
    return halfLane.entryTag(request, noValues);
  }

  @TearDown(Level.Trial)
  public void check() {
    SluiceContext.Scope scope = SluiceContext.attach(gray);
    try {
      if (governor.laneInstances(withGray).size() != 1
          || governor.laneInstances(baseOnly).size() != 3) {
        throw new IllegalStateException("lane routing picked the wrong instances");
      }
    } finally {
      scope.close();
    }
    if (governor.laneInstances(withGray).size() != 3) {
      throw new IllegalStateException("an untagged call could reach the gray instance");
    }
  }
}
