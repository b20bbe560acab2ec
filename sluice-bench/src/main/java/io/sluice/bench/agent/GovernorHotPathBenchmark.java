package io.sluice.bench.agent;

import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.governance.FlowGovernor;
import io.sluice.agent.logging.AgentLog;
import io.sluice.agent.rules.RuleType;
import io.sluice.flow.FlowRegistry;
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
 * What the inbound advice costs per request, without the HTTP around it: the calls the Spring MVC
 * advice makes into the agent (route to resource, acquire, release), for a route whose flow rule is
 * never reached and for a route without rules. Run with the allocation profiler to check the path
 * allocates nothing:
 *
 * <pre>
 * java -jar sluice-bench/target/benchmarks.jar GovernorHotPathBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class GovernorHotPathBenchmark {
  private FlowGovernor governor;

  @Setup
  public void setUp() throws Exception {
    governor =
        new FlowGovernor(
            FlowRegistry.builder().build(),
            FlowGovernor.verdicts(429, 503, 1),
            name -> {},
            AgentLog.toStream(System.err, AgentLog.Level.WARN));
    governor.apply(
        RuleType.FLOW, "[{\"resource\":\"GET /orders/{id}\",\"grade\":1,\"count\":1000000000}]");
  }

  /** A route with a flow rule that is never reached (the overhead benchmark's case). */
  @Benchmark
  public long routeWithRule() {
    return oneRequest("/orders/{id}");
  }

  /** A route no rule names: resolved, then ungoverned after one field read. */
  @Benchmark
  public long routeWithoutRule() {
    return oneRequest("/work");
  }

  private long oneRequest(String route) {
    Object resource = governor.inboundResource("GET", route);
    long permit = governor.acquire(resource);
    if (permit > 0) {
      governor.release(resource, permit, 200, null);
    } else if (permit != GovernanceHooks.UNGOVERNED) {
      throw new IllegalStateException("refused");
    }
    return permit;
  }
}
