package io.sluice.bench.agent;

import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.governance.FlowGovernor;
import io.sluice.agent.governance.LaneGovernance;
import io.sluice.agent.logging.AgentLog;
import io.sluice.agent.rules.RuleType;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.Ticker;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.Result;
import org.apache.dubbo.rpc.RpcInvocation;
import org.apache.dubbo.rpc.cluster.Directory;
import org.apache.dubbo.rpc.cluster.directory.StaticDirectory;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the Dubbo advice costs per call, without the network around it: the calls each advice makes
 * into the agent, in the order a call runs them, on real Dubbo objects (an {@code RpcInvocation}
 * with the attachments a call carries, a {@code StaticDirectory} whose providers have real {@code
 * URL}s, which Dubbo copies on every {@code getAllInvokers()} as its registry directories do).
 *
 * <ul>
 *   <li>consumer ({@code ConsumerInvocationAdvice}, then {@code ClusterListAdvice}): the outbound
 *       attachments onto the invocation, the call's interface and method permits, the lane router's
 *       choice among the directory's providers, the release;
 *   <li>provider ({@code ProviderInvokerAdvice}): the context from the attachments (the caller, the
 *       lane), the permits, the release.
 * </ul>
 *
 * {@code rules=none}: no rule, no lane document, no tagged provider (what every call must pass
 * through at once). {@code rules=demo}: the demo chain's documents (a 50 % lane, a flow rule never
 * reached on the method, on both sides) and a gray provider beside a base one. Calls come from a
 * governed caller ({@code a}), untagged or in the gray lane, or in the gray lane from a caller that
 * names itself nowhere (a consumer without the agent; on the consumer side, a request the entry
 * rules put in the lane, as the gateway's are). Check with the allocation profiler that none of
 * them allocates:
 *
 * <pre>
 * java -jar sluice-bench/target/benchmarks.jar DubboAdviceBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DubboAdviceBenchmark {
  private static final String NEVER = "1000000000";
  private static final Class<?>[] HELLO_TYPES = {String.class};

  /** The service interface both sides see. */
  public interface BService {
    String hello(String name);
  }

  @Param({"none", "demo"})
  public String rules;

  /**
   * How the consumer's lane pick finds the split of the directory's providers: {@code directory}
   * (found from the directory, as the agent does) or {@code list} (looked up by the provider list's
   * identity, as before; for comparison: {@code -p lanePick=directory,list}).
   */
  @Param({"directory"})
  public String lanePick = "directory";

  /**
   * How the provider finds the call's method: {@code slot} (by the parameter-types array's slot, as
   * the agent does) or {@code name} (by class, method name and overload on every call, as before;
   * for comparison: {@code -p methodLookup=slot,name}).
   */
  @Param({"slot"})
  public String methodLookup = "slot";

  /**
   * How the provider reads its context from the attachments: {@code memo} (the agent's: the
   * caller's other names only when needed, the shared context from a memo) or {@code gets} (every
   * attachment, then {@code SluiceContext.inbound}'s maps, as before; {@code -p
   * providerContext=memo,gets}).
   */
  @Param({"memo"})
  public String providerContext = "memo";

  private boolean contextByGets;

  /** The registry's clock; {@link DubboAdviceColdBenchmark} sets its own. */
  Ticker ticker = Ticker.system();

  FlowGovernor governor;
  Directory<BService> directory;
  List<Invoker<BService>> routed;
  private Invoker<BService> grayProvider;
  RpcInvocation consumerInvocation;
  RpcInvocation providerInvocation;
  RpcInvocation grayProviderInvocation;
  private RpcInvocation grayUnnamedInvocation;
  SluiceContext untaggedRequest;
  SluiceContext grayRequest;
  final Object[][] names = {{"alice"}, {"bob"}, {"carol"}, {"dave"}};
  private int next;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    AgentLog log = AgentLog.toStream(System.err, AgentLog.Level.WARN);
    governor =
        new FlowGovernor(
            FlowRegistry.builder().ticker(ticker).build(),
            FlowGovernor.verdicts(429, 503, 1),
            name -> {},
            new LaneGovernance(null, log),
            log);
    governor.applicationNamed("a");
    if (lanePick.equals("list")) {
      pickByList(governor);
    }
    if (methodLookup.equals("name")) {
      lookUpMethodsByName(governor);
    }
    contextByGets = providerContext.equals("gets");
    boolean demo = rules.equals("demo");
    List<Invoker<BService>> providers = new ArrayList<>();
    providers.add(new BenchInvoker("10.0.0.2", null));
    grayProvider = new BenchInvoker("10.0.0.3", demo ? "gray" : null);
    providers.add(grayProvider);
    directory = new StaticDirectory<>(providers);
    // What Dubbo's routers hand the cluster: a list of its own per call, here the same contents.
    routed = Collections.unmodifiableList(new ArrayList<>(providers));
    if (demo) {
      governor.apply(
          RuleType.LANES,
          "{\"lanes\":[{\"name\":\"gray-half\",\"tag\":\"gray\",\"percentage\":50}]}");
      governor.apply(
          RuleType.FLOW,
          "[{\"resource\":\""
              + BService.class.getName()
              + ":hello(java.lang.String)\",\"grade\":1,\"count\":"
              + NEVER
              + "}]");
    }
    untaggedRequest = SluiceContext.inbound("gateway", null, null, null);
    grayRequest = SluiceContext.inbound("gateway", "gray", null, null);
    consumerInvocation = invocation();
    providerInvocation = invocation();
    providerInvocation.setAttachment("x-sluice-origin", "a");
    grayProviderInvocation = invocation();
    grayProviderInvocation.setAttachment("x-sluice-origin", "a");
    grayProviderInvocation.setAttachment("x-sluice-lane", "gray");
    // A call in a lane from a consumer that names no application (no agent, no Sentinel adapter,
    // no remote.application): the lane alone.
    grayUnnamedInvocation = invocation(null);
    grayUnnamedInvocation.setAttachment("x-sluice-lane", "gray");
  }

  /** An invocation with the attachments Dubbo itself sends with every call. */
  private static RpcInvocation invocation() {
    return invocation("a");
  }

  /** The same, from a consumer named {@code application} in Dubbo's own attachment, or none. */
  private static RpcInvocation invocation(String application) {
    RpcInvocation invocation =
        new RpcInvocation(
            null, "hello", BService.class.getName(), null, HELLO_TYPES, new Object[] {"x"});
    invocation.setAttachment("path", BService.class.getName());
    invocation.setAttachment("interface", BService.class.getName());
    invocation.setAttachment("version", "0.0.0");
    invocation.setAttachment("timeout", "5000");
    if (application != null) {
      invocation.setAttachment("remote.application", application);
    }
    return invocation;
  }

  @TearDown(Level.Trial)
  public void check() {
    SluiceContext.restore(grayRequest);
    List<?> gray = governor.rpcLaneInvokers(routed, directory);
    SluiceContext.restore(untaggedRequest);
    List<?> untagged = governor.rpcLaneInvokers(routed, directory);
    SluiceContext.restore(null);
    boolean demo = rules.equals("demo");
    if (demo
        ? !(gray.equals(List.of(grayProvider))
            && untagged.size() == 1
            && !untagged.contains(grayProvider))
        : gray != routed || untagged != routed) {
      throw new IllegalStateException("lane routing picked " + gray + " and " + untagged);
    }
  }

  /** A consumer's call made while serving an untagged request. */
  @Benchmark
  public Object consumerUntagged() {
    return consumerCall(untaggedRequest);
  }

  /** A consumer's call made while serving a gray request. */
  @Benchmark
  public Object consumerGray() {
    return consumerCall(grayRequest);
  }

  /** A provider's call from a governed consumer, untagged. */
  @Benchmark
  public long providerUntagged() {
    return providerCall(providerInvocation);
  }

  /** A provider's call from a governed consumer, in the gray lane. */
  @Benchmark
  public long providerGray() {
    return providerCall(grayProviderInvocation);
  }

  /** A provider's call in the gray lane from a consumer that does not name itself. */
  @Benchmark
  public long providerGrayWithoutCaller() {
    return providerCall(grayUnnamedInvocation);
  }

  /**
   * A consumer's call made while serving a request the entry rules put in the gray lane, which
   * arrived with neither caller nor lane (the gateway's case): the context as the server hook makes
   * it, then the call.
   */
  @Benchmark
  public Object consumerGrayEnteredWithoutCaller() {
    return consumerCall(SluiceContext.of(null, "gray"));
  }

  private Object consumerCall(SluiceContext request) {
    // The request's context, as the servlet hook made it current.
    SluiceContext previous = SluiceContext.replace(request);
    try {
      next = (next + 1) & 3;
      Object[] args = names[next];
      // ConsumerInvocationAdvice.enter
      String[] headers = governor.outboundHeaders();
      for (int i = 0; i + 1 < headers.length; i += 2) {
        consumerInvocation.setAttachment(headers[i], headers[i + 1]);
      }
      Object call =
          governor.rpcCall(
              BService.class,
              consumerInvocation.getMethodName(),
              consumerInvocation.getParameterTypes(),
              GovernanceHooks.DUBBO_CONSUMER);
      long service = 0;
      long method = 0;
      if (call != null) {
        service = governor.rpcAcquireService(call, args);
        method = service < 0 ? 0 : governor.rpcAcquireMethod(call, args, service);
        if (service < 0 || method < 0) {
          throw new IllegalStateException(governor.rpcRefusalMessage(call, service, method));
        }
      }
      // ClusterListAdvice.exit
      List<?> chosen = governor.rpcLaneInvokers(routed, directory);
      // ConsumerInvocationAdvice.exit
      if (service > 0 || method > 0) {
        governor.rpcRelease(call, service, method, null);
      }
      return chosen;
    } finally {
      SluiceContext.restore(previous);
    }
  }

  private long providerCall(Invocation invocation) {
    // ProviderInvokerAdvice.enter
    SluiceContext context =
        contextByGets
            ? contextByGets(invocation.getObjectAttachments())
            : governor.rpcInboundContext(invocation.getObjectAttachments());
    SluiceContext previous = null;
    boolean attached = false;
    if (context != null) {
      previous = SluiceContext.replace(context);
      attached = true;
    }
    next = (next + 1) & 3;
    Object[] args = names[next];
    Object call =
        governor.rpcCall(
            BService.class,
            invocation.getMethodName(),
            invocation.getParameterTypes(),
            GovernanceHooks.DUBBO_PROVIDER);
    long service = 0;
    long method = 0;
    if (call != null) {
      SluiceContext routedContext = governor.rpcRouteContext(call);
      if (routedContext != null) {
        SluiceContext replaced = SluiceContext.replace(routedContext);
        if (!attached) {
          previous = replaced;
          attached = true;
        }
      }
      service = governor.rpcAcquireService(call, args);
      method = service < 0 ? 0 : governor.rpcAcquireMethod(call, args, service);
      if (service < 0 || method < 0) {
        throw new IllegalStateException(governor.rpcRefusalMessage(call, service, method));
      }
    }
    // ProviderInvokerAdvice.exit
    if (attached) {
      SluiceContext.restore(previous);
    }
    if (service > 0 || method > 0) {
      governor.rpcRelease(call, service, method, null);
    }
    return method;
  }

  /**
   * Sends {@code governor}'s lane picks the way they went before the per-directory splits: the
   * directory's list read through a method handle found per class, its split looked up by the
   * list's identity. The switch is the agent's (package-private); set here by reflection, once.
   */
  static void pickByList(FlowGovernor governor) throws ReflectiveOperationException {
    java.lang.reflect.Field lanes = FlowGovernor.class.getDeclaredField("lanes");
    lanes.setAccessible(true);
    Object laneGovernance = lanes.get(governor);
    java.lang.reflect.Field splits = LaneGovernance.class.getDeclaredField("splitsByDirectory");
    splits.setAccessible(true);
    splits.setBoolean(laneGovernance, false);
  }

  /**
   * Sends {@code governor}'s provider method lookups the way they went before the parameter-types
   * slots: by class, method name and overload, on every call. The switch is the agent's
   * (package-private); set here by reflection, once.
   */
  static void lookUpMethodsByName(FlowGovernor governor) throws ReflectiveOperationException {
    java.lang.reflect.Field bySlot = FlowGovernor.class.getDeclaredField("methodsBySlot");
    bySlot.setAccessible(true);
    bySlot.setBoolean(governor, false);
  }

  /**
   * A provider call's context as the agent read it before its attachment cut ({@code
   * DubboAttachments.contextOf} up to {@code 295682b}): all six attachments, then {@code
   * SluiceContext.inbound}, which finds the shared context through its map by origin and the origin
   * context's map by lane. Kept here, verbatim, to compare against in the same JVM.
   */
  static SluiceContext contextByGets(Map<String, Object> attachments) {
    if (attachments == null || attachments.isEmpty()) {
      return null;
    }
    String origin =
        SluiceContext.originOf(
            string(attachments, SluiceContext.Headers.ORIGIN),
            string(attachments, "dubboApplication"));
    if (origin == null) {
      origin = string(attachments, "remote.application");
    }
    return SluiceContext.inbound(
        origin,
        string(attachments, SluiceContext.Headers.LANE),
        string(attachments, SluiceContext.Headers.MSE_LANE),
        string(attachments, SluiceContext.Headers.BAGGAGE));
  }

  private static String string(Map<String, Object> attachments, String key) {
    Object value = attachments.get(key);
    return value instanceof String ? (String) value : null;
  }

  /** A provider as a consumer's directory holds it: its URL (with its lane, if any). */
  static final class BenchInvoker implements Invoker<BService> {
    private final URL url;

    BenchInvoker(String host, String lane) {
      this.url =
          URL.valueOf(
              "dubbo://"
                  + host
                  + ":20880/"
                  + BService.class.getName()
                  + "?interface="
                  + BService.class.getName()
                  + (lane == null ? "" : "&sluice.lane=" + lane));
    }

    @Override
    public Class<BService> getInterface() {
      return BService.class;
    }

    @Override
    public Result invoke(Invocation invocation) {
      throw new UnsupportedOperationException("never sent");
    }

    @Override
    public URL getUrl() {
      return url;
    }

    @Override
    public boolean isAvailable() {
      return true;
    }

    @Override
    public void destroy() {}

    @Override
    public String toString() {
      return url.getAddress();
    }
  }
}
