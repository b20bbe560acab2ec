package io.sluice.bench.agent;

import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.SluiceContext;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the inbound and outbound advice cost per call, without the HTTP around them: the calls the
 * Spring MVC advice makes into the agent (route to resource, route context, acquire, release) for a
 * route without rules and for routes whose rules are never reached, each kind of rule reading what
 * it needs (the caller's name and entrance, the handler's arguments, a request header), and the
 * outbound headers a client call asks for. Run with the allocation profiler to check that none of
 * them allocates:
 *
 * <pre>
 * java -jar sluice-bench/target/benchmarks.jar GovernorHotPathBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class GovernorHotPathBenchmark {
  private static final String NEVER = "1000000000";

  private FlowGovernor governor;
  private final Object[][] arguments = {{42L}, {43L}, {44L}, {45L}};
  private final BenchRequest[] requests = {
    new BenchRequest("alice"), new BenchRequest("bob"), new BenchRequest("carol")
  };
  private int next;
  private SluiceContext callerContext;

  /** A Dubbo service interface, as the provider advice sees its calls. */
  public interface Greeter {
    String hello(String name);
  }

  private static final Class<?>[] HELLO_TYPES = {String.class};
  private final Object[][] names = {{"alice"}, {"bob"}, {"carol"}, {"dave"}};

  @Setup
  public void setUp() throws Exception {
    governor =
        new FlowGovernor(
            FlowRegistry.builder().build(),
            FlowGovernor.verdicts(429, 503, 1),
            name -> {},
            AgentLog.toStream(System.err, AgentLog.Level.WARN));
    governor.applicationNamed("orders");
    governor.apply(
        RuleType.PARAM_FLOW,
        "[{\"resource\":\"GET /by-argument/{id}\",\"paramIdx\":0,\"count\":"
            + NEVER
            + "},{\"resource\":\"GET /by-header\",\"paramSource\":{\"header\":\"x-user-id\"},"
            + "\"count\":"
            + NEVER
            + "},{\"resource\":\""
            + Greeter.class.getName()
            + ":hello(java.lang.String)\",\"paramIdx\":0,\"count\":"
            + NEVER
            + "}]");
    governor.apply(
        RuleType.FLOW,
        "[{\"resource\":\"GET /orders/{id}\",\"grade\":1,\"count\":"
            + NEVER
            + "},{\"resource\":\"GET /from-caller\",\"grade\":1,\"count\":"
            + NEVER
            + ",\"limitApp\":\"billing\"},"
            // A CHAIN rule somewhere makes every route set its entrance.
            + "{\"resource\":\"GET stock/items/{id}\",\"count\":"
            + NEVER
            + ",\"strategy\":2,\"refResource\":\"GET /from-caller\"},"
            + "{\"resource\":\""
            + Greeter.class.getName()
            + "\",\"count\":"
            + NEVER
            + "}]");
    callerContext = SluiceContext.inbound("billing", null, null, null);
  }

  @TearDown
  public void tearDown() {
    SluiceContext.restore(null);
  }

  /** A route with a flow rule that is never reached (the overhead benchmark's case). */
  @Benchmark
  public long routeWithRule() {
    return oneRequest("/orders/{id}", null, null);
  }

  /** A route no rule names: resolved, then ungoverned after one field read. */
  @Benchmark
  public long routeWithoutRule() {
    return oneRequest("/work", null, null);
  }

  /**
   * A route called by another governed application (its shared origin context), under a {@code
   * limitApp} rule, while a CHAIN rule makes the route set itself as the entrance.
   */
  @Benchmark
  public long routeFromAGovernedCaller() {
    SluiceContext previous = SluiceContext.replace(callerContext);
    try {
      return oneRequest("/from-caller", null, null);
    } finally {
      SluiceContext.restore(previous);
    }
  }

  /** A route whose hot-parameter rule reads argument 0 of the handler method. */
  @Benchmark
  public long routeWithArgumentRule() {
    next = (next + 1) & 3;
    return oneRequest("/by-argument/{id}", arguments[next], null);
  }

  /** A route whose hot-parameter rule reads the {@code x-user-id} header. */
  @Benchmark
  public long routeWithHeaderRule() {
    next = (next + 1) % requests.length;
    return oneRequest("/by-header", null, requests[next]);
  }

  /**
   * A Dubbo provider call from a governed consumer, as its advice makes it: the interface's and the
   * method's resources found by class, name and parameter types, a flow rule on the interface and a
   * hot-parameter rule on the method's first argument, never reached.
   */
  @Benchmark
  public long dubboProviderCall() {
    SluiceContext previous = SluiceContext.replace(callerContext);
    try {
      next = (next + 1) & 3;
      Object[] args = names[next];
      Object call =
          governor.rpcCall(Greeter.class, "hello", HELLO_TYPES, GovernanceHooks.DUBBO_PROVIDER);
      long servicePermit = governor.rpcAcquireService(call, args);
      long methodPermit = governor.rpcAcquireMethod(call, args, servicePermit);
      if (servicePermit <= 0 || methodPermit <= 0) {
        throw new IllegalStateException("not governed or refused");
      }
      governor.rpcRelease(call, servicePermit, methodPermit, null);
      return methodPermit;
    } finally {
      SluiceContext.restore(previous);
    }
  }

  /** The headers an outbound call of a request from a governed caller carries. */
  @Benchmark
  public String[] outboundHeaders() {
    SluiceContext previous = SluiceContext.replace(callerContext);
    try {
      return governor.outboundHeaders();
    } finally {
      SluiceContext.restore(previous);
    }
  }

  private long oneRequest(String route, Object[] args, Object request) {
    Object resource = governor.inboundResource("GET", route, GovernanceHooks.SERVLET_ROUTE);
    SluiceContext routed = governor.routeContext(resource);
    SluiceContext previous = routed == null ? null : SluiceContext.replace(routed);
    long permit = governor.acquire(resource, args, request, GovernanceHooks.SERVLET_REQUEST);
    if (permit > 0) {
      governor.release(resource, permit, 200, null);
    } else if (permit != GovernanceHooks.UNGOVERNED) {
      throw new IllegalStateException("refused");
    }
    if (routed != null) {
      SluiceContext.restore(previous);
    }
    return permit;
  }
}
