package io.sluice.bench.agent;

import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.governance.FlowGovernor;
import io.sluice.bench.agent.DubboAdviceBenchmark.BService;
import java.lang.reflect.Field;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.rpc.Invocation;
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
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * The Dubbo advice's calls of {@link DubboAdviceBenchmark}, each timed alone with cold caches, as
 * they run in a process that shares two cores with nine others at 250 requests/s: before every call
 * an untimed sweep reads one long per 64-byte line of a {@code sweepKiB} buffer. 2048 (twice the 1
 * MiB L2) leaves the call's code and data in L3 at best; 65536 (twice a 32 MiB L3, and 16,384 pages
 * where the TLBs hold a few thousand) sends every line and page walk to memory. A data sweep evicts
 * code too: L2 and L3 are unified, and L2 holds what L1i holds.
 *
 * <p>The variants run interleaved in one benchmark ({@link #components}), in a shuffled order per
 * round, each call timed on its own with {@code System.nanoTime}: on a shared machine the load
 * changes by the minute, and variants measured one after the other would differ by it. JMH's own
 * score of {@code components} is the mixture and means nothing; each fork prints, per variant, the
 * median of its measurement calls minus the median of {@code baseline} (the timer alone, as cold),
 * with the quartiles ({@code cold:} lines). Quote the median over forks and the forks' range.
 *
 * <p>The registries' clocks are fakes moved 100 us per call (untimed), so how often a call crosses
 * a statistics tick does not depend on how fast a loaded machine sweeps.
 *
 * <p>The trial setup first runs every variant hot ({@link #HOT_CALLS} times), so the cold calls run
 * C2 code as a long-running process does (at a few hundred swept calls a second, warm-up iterations
 * alone would leave them interpreted or in C1, whose profiling touches more lines).
 *
 * <p>Variants, to split the cold cost by component ({@code demo} rules: a 50 % lane, a flow rule on
 * the method that never limits; calls from the governed caller {@code a}):
 *
 * <ul>
 *   <li>{@code provider}, {@code providerGray}, {@code consumer}, {@code consumerGray}: the whole
 *       advice, as {@link DubboAdviceBenchmark} makes it; {@code providerNoRules} and {@code
 *       consumerNoRules}: the same with no rule and no lane (the agent with nothing to govern).
 *   <li>{@code provider1Context} .. {@code provider4Method}, {@code consumer1Headers} .. {@code
 *       consumer4Lanes}: the advice cut after step n, so step n's cold cost is the difference to
 *       step n-1 (in the context of the steps before it, which warmed what they share).
 *   <li>{@code only*}: one step alone, its inputs prepared before the sweep: what it costs when it
 *       is the first to touch its lines ({@code onlyRelease} releases permits taken before the
 *       sweep; {@code onlyThreadLocal} is one read of the current context; {@code onlyTickSample}
 *       is the method's acquire on a call that crosses the statistics' 100 ms tick and files it,
 *       which at 250 calls/s one call in 25 does).
 *   <li>{@code providerCopy} and {@code providerSlowExit} (and the consumer's): the whole advice on
 *       two more governors set up alike; the second's interface resource (no rule) is sent the old
 *       way, through its node and guard, instead of answering at its handle. The copy is the A/A
 *       control: how much two identical governors differ by where their objects lie.
 *   <li>{@code consumerByList}, {@code consumerGrayByList} and {@code onlyLaneInvokersByList}: the
 *       consumer call (untagged, gray) and the gray lane pick alone on a fourth governor whose pick
 *       goes the way it went before the per-directory splits (the directory's list read through a
 *       method handle found per class, its split looked up by the list's identity), against {@code
 *       consumerCopy}, {@code consumerGrayCopy} and {@code onlyLaneInvokers}.
 *   <li>{@code providerByName}, {@code providerGrayByName} and {@code onlyLookupByName}: the
 *       provider call (untagged, gray) and the method lookup alone on a governor whose provider
 *       finds the method the way it did before the parameter-types slots (class, method name,
 *       overload), against {@code providerCopy}, {@code providerGrayCopy} and {@code onlyLookup}.
 *   <li>{@code providerByGets}, {@code providerGrayByGets} and {@code onlyGrayContextByGets}: the
 *       provider call and the gray call's context alone, read from the attachments the way they
 *       were before the attachment cut (all six attachments, then {@code SluiceContext.inbound}'s
 *       maps), against {@code providerCopy}, {@code providerGrayCopy} and {@code onlyGrayContext}.
 *   <li>{@code providerCodeWarm}: the provider call after the same call on a twin governor (other
 *       objects, same code and classes) ran between the sweep and the timer, so only this
 *       governor's own objects are cold; the whole minus this is what code and shared data cost.
 * </ul>
 *
 * <pre>
 * java -cp sluice-bench/target/benchmarks.jar org.openjdk.jmh.Main DubboAdviceColdBenchmark \
 *     -p sweepKiB=65536 | grep cold:
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 1, time = 2)
@Measurement(iterations = 3, time = 5)
@Fork(3)
public class DubboAdviceColdBenchmark {
  static final int HOT_CALLS = 30_000;

  static final String[] VARIANTS = {
    "baseline",
    "provider",
    "providerGray",
    "providerNoRules",
    "provider1Context",
    "provider2Lookup",
    "provider3Service",
    "provider4Method",
    "providerCodeWarm",
    "onlyThreadLocal",
    "onlyLookup",
    "onlyServiceAcquire",
    "onlyMethodAcquire",
    "onlyRelease",
    "onlyTickSample",
    "consumer",
    "consumerGray",
    "consumerNoRules",
    "consumer1Headers",
    "consumer2Lookup",
    "consumer3Acquire",
    "consumer4Lanes",
    "onlyLaneInvokers",
    "providerCopy",
    "providerSlowExit",
    "consumerCopy",
    "consumerSlowExit",
    "consumerGrayCopy",
    "consumerByList",
    "consumerGrayByList",
    "onlyLaneInvokersByList",
    "providerGrayCopy",
    "providerByName",
    "providerGrayByName",
    "onlyLookupByName",
    "providerByGets",
    "providerGrayByGets",
    "onlyGrayContext",
    "onlyGrayContextByGets",
  };

  private static final int CONTEXT = 1;
  private static final int LOOKUP = 2;
  private static final int SERVICE = 3;
  private static final int METHOD = 4;
  private static final int ALL = 5;
  private static final int RELEASE_VARIANT = indexOf("onlyRelease");
  private static final int CODE_WARM_VARIANT = indexOf("providerCodeWarm");
  private static final int TICK_VARIANT = indexOf("onlyTickSample");
  // The clock moves this much per call, untimed: the statistics' 100 ms tick is then crossed once
  // in ~1,000 calls whatever the machine's load, instead of on every call when a loaded machine
  // sweeps slowly. onlyTickSample crosses it on purpose, on the twin's registry alone.
  private static final long NANOS_PER_CALL = 100_000;
  private static final long TICK_NANOS = 100_000_000;

  @Param({"demo"})
  public String rules;

  @Param({"2048", "65536"})
  public int sweepKiB;

  private final DubboAdviceBenchmark calls = new DubboAdviceBenchmark();
  private final DubboAdviceBenchmark twin = new DubboAdviceBenchmark();
  private final DubboAdviceBenchmark ungoverned = new DubboAdviceBenchmark();
  private final DubboAdviceBenchmark copy = new DubboAdviceBenchmark();
  private final DubboAdviceBenchmark slowExit = new DubboAdviceBenchmark();
  private final DubboAdviceBenchmark byList = new DubboAdviceBenchmark();
  private final DubboAdviceBenchmark byName = new DubboAdviceBenchmark();
  private final DubboAdviceBenchmark byGets = new DubboAdviceBenchmark();
  private final long[] clock = new long[1];
  private final long[] twinClock = new long[1];
  private FlowGovernor governor;
  private Object twinCall;
  private Object providerCall;
  private Object[] args;
  private long warmSink;
  private Object warmObjects;
  private long servicePermit;
  private long methodPermit;
  private ColdRounds rounds;

  private static int indexOf(String variant) {
    return ColdRounds.indexOf(VARIANTS, variant);
  }

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    calls.rules = rules;
    calls.ticker = () -> clock[0];
    calls.setUp();
    twin.rules = rules;
    twin.ticker = () -> twinClock[0];
    twin.setUp();
    ungoverned.rules = "none";
    ungoverned.ticker = calls.ticker;
    ungoverned.setUp();
    byList.lanePick = "list";
    byName.methodLookup = "name";
    byGets.providerContext = "gets";
    for (DubboAdviceBenchmark same :
        new DubboAdviceBenchmark[] {copy, slowExit, byList, byName, byGets}) {
      same.rules = rules;
      same.ticker = calls.ticker;
      same.setUp();
    }
    takeTheSlowExit(slowExit, GovernanceHooks.DUBBO_PROVIDER);
    takeTheSlowExit(slowExit, GovernanceHooks.DUBBO_CONSUMER);
    governor = calls.governor;
    args = calls.names[0];
    providerCall =
        governor.rpcCall(
            BService.class,
            calls.providerInvocation.getMethodName(),
            calls.providerInvocation.getParameterTypes(),
            GovernanceHooks.DUBBO_PROVIDER);
    twinCall =
        twin.governor.rpcCall(
            BService.class,
            twin.providerInvocation.getMethodName(),
            twin.providerInvocation.getParameterTypes(),
            GovernanceHooks.DUBBO_PROVIDER);
    // What only* variants run in: serving a call from a, as the provider advice leaves it.
    SluiceContext.replace(
        governor.rpcInboundContext(calls.providerInvocation.getObjectAttachments()));
    for (int i = 0; i < HOT_CALLS; i++) {
      for (int v = 0; v < VARIANTS.length; v++) {
        prepare(v);
        warmSink += run(v, null);
      }
    }
    rounds = new ColdRounds(VARIANTS, sweepKiB);
  }

  @Setup(Level.Iteration)
  public void iteration(IterationParams params) {
    rounds.measuring(params.getType() == IterationType.MEASUREMENT);
  }

  /** Prints each variant's median minus the baseline's, with quartiles, in us. */
  @TearDown(Level.Trial)
  public void report() {
    calls.check();
    copy.check();
    byList.check();
    byName.check();
    byGets.check();
    SluiceContext.restore(null);
    System.out.print(rounds.coldLines());
  }

  /**
   * Picks the next variant, prepares what it needs, then evicts the caches: one read per 64-byte
   * line of the buffer. Untimed.
   */
  @Setup(Level.Invocation)
  public void sweep() {
    int next = rounds.upcoming();
    prepare(next);
    rounds.evictCaches();
    if (next == CODE_WARM_VARIANT) {
      twin.providerUntagged();
    }
  }

  private void prepare(int variant) {
    clock[0] += NANOS_PER_CALL;
    twinClock[0] += variant == TICK_VARIANT ? TICK_NANOS : NANOS_PER_CALL;
    if (variant == RELEASE_VARIANT) {
      servicePermit = governor.rpcAcquireService(providerCall, args);
      methodPermit = governor.rpcAcquireMethod(providerCall, args, servicePermit);
    }
  }

  /** Times the next variant's call. */
  @Benchmark
  public long components(Blackhole sink) {
    int v = rounds.take();
    long start = System.nanoTime();
    long result = run(v, sink);
    long time = System.nanoTime() - start;
    sink.consume(result);
    rounds.record(v, time);
    return time;
  }

  /** Runs one variant; an object result goes to {@code sink} (no boxing in the timed call). */
  private long run(int variant, Blackhole sink) {
    switch (variant) {
      case 0:
        return 0;
      case 1:
        return calls.providerUntagged();
      case 2:
        return calls.providerGray();
      case 3:
        return ungoverned.providerUntagged();
      case 4:
        return providerSteps(calls.providerInvocation, CONTEXT);
      case 5:
        return providerSteps(calls.providerInvocation, LOOKUP);
      case 6:
        return providerSteps(calls.providerInvocation, SERVICE);
      case 7:
        return providerSteps(calls.providerInvocation, METHOD);
      case 8:
        return calls.providerUntagged();
      case 9:
        return consume(sink, SluiceContext.current());
      case 10:
        return consume(
            sink,
            governor.rpcCall(
                BService.class,
                calls.providerInvocation.getMethodName(),
                calls.providerInvocation.getParameterTypes(),
                GovernanceHooks.DUBBO_PROVIDER));
      case 11:
        return governor.rpcAcquireService(providerCall, args);
      case 12:
        return governor.rpcAcquireMethod(providerCall, args, 0);
      case 13:
        governor.rpcRelease(providerCall, servicePermit, methodPermit, null);
        return methodPermit;
      case 14:
        return twin.governor.rpcAcquireMethod(twinCall, args, 0);
      case 15:
        return consume(sink, calls.consumerUntagged());
      case 16:
        return consume(sink, calls.consumerGray());
      case 17:
        return consume(sink, ungoverned.consumerUntagged());
      case 18:
        return consume(sink, consumerSteps(calls.untaggedRequest, CONTEXT));
      case 19:
        return consume(sink, consumerSteps(calls.untaggedRequest, LOOKUP));
      case 20:
        return consume(sink, consumerSteps(calls.untaggedRequest, SERVICE));
      case 21:
        return consume(sink, consumerSteps(calls.untaggedRequest, METHOD));
      case 22:
        return consume(sink, laneInvokers(calls));
      case 23:
        return copy.providerUntagged();
      case 24:
        return slowExit.providerUntagged();
      case 25:
        return consume(sink, copy.consumerUntagged());
      case 26:
        return consume(sink, slowExit.consumerUntagged());
      case 27:
        return consume(sink, copy.consumerGray());
      case 28:
        return consume(sink, byList.consumerUntagged());
      case 29:
        return consume(sink, byList.consumerGray());
      case 30:
        return consume(sink, laneInvokers(byList));
      case 31:
        return copy.providerGray();
      case 32:
        return byName.providerUntagged();
      case 33:
        return byName.providerGray();
      case 34:
        return consume(
            sink,
            byName.governor.rpcCall(
                BService.class,
                byName.providerInvocation.getMethodName(),
                byName.providerInvocation.getParameterTypes(),
                GovernanceHooks.DUBBO_PROVIDER));
      case 35:
        return byGets.providerUntagged();
      case 36:
        return byGets.providerGray();
      case 37:
        return consume(
            sink, governor.rpcInboundContext(calls.grayProviderInvocation.getObjectAttachments()));
      case 38:
        return consume(
            sink,
            DubboAdviceBenchmark.contextByGets(
                byGets.grayProviderInvocation.getObjectAttachments()));
      default:
        throw new IllegalStateException("variant " + variant);
    }
  }

  /**
   * Sends the calls of {@code fixture}'s interface resource (which no rule governs) the way every
   * call went before the resource handle's {@code governed} flag: through the node and its guard.
   * The flag is sluice-flow's, package-private; set here by reflection, once.
   */
  private static void takeTheSlowExit(DubboAdviceBenchmark fixture, int path) throws Exception {
    Object call =
        fixture.governor.rpcCall(
            BService.class,
            fixture.providerInvocation.getMethodName(),
            fixture.providerInvocation.getParameterTypes(),
            path);
    Object service = field(call, "service");
    Object flow = field(service, "flow");
    Field governed = flow.getClass().getDeclaredField("governed");
    governed.setAccessible(true);
    if (governed.getBoolean(flow)) {
      throw new IllegalStateException("the interface resource is governed: nothing to compare");
    }
    governed.setBoolean(flow, true);
  }

  private static Object field(Object owner, String name) throws Exception {
    Field field = owner.getClass().getDeclaredField(name);
    field.setAccessible(true);
    return field.get(owner);
  }

  private long consume(Blackhole sink, Object result) {
    if (sink != null) {
      sink.consume(result);
    } else {
      warmObjects = result;
    }
    return 0;
  }

  private static Object laneInvokers(DubboAdviceBenchmark fixture) {
    SluiceContext previous = SluiceContext.replace(fixture.grayRequest);
    try {
      return fixture.governor.rpcLaneInvokers(fixture.routed, fixture.directory);
    } finally {
      SluiceContext.restore(previous);
    }
  }

  /** {@code DubboAdviceBenchmark.providerCall} up to and including {@code steps}. */
  private long providerSteps(Invocation invocation, int steps) {
    SluiceContext context = governor.rpcInboundContext(invocation.getObjectAttachments());
    SluiceContext previous = null;
    boolean attached = false;
    if (context != null) {
      previous = SluiceContext.replace(context);
      attached = true;
    }
    Object call = null;
    long service = 0;
    long method = 0;
    if (steps >= LOOKUP) {
      call =
          governor.rpcCall(
              BService.class,
              invocation.getMethodName(),
              invocation.getParameterTypes(),
              GovernanceHooks.DUBBO_PROVIDER);
    }
    if (call != null && steps >= SERVICE) {
      SluiceContext routedContext = governor.rpcRouteContext(call);
      if (routedContext != null) {
        SluiceContext replaced = SluiceContext.replace(routedContext);
        if (!attached) {
          previous = replaced;
          attached = true;
        }
      }
      service = governor.rpcAcquireService(call, args);
      if (steps >= METHOD) {
        method = service < 0 ? 0 : governor.rpcAcquireMethod(call, args, service);
      }
    }
    if (attached) {
      SluiceContext.restore(previous);
    }
    if (steps >= ALL && (service > 0 || method > 0)) {
      governor.rpcRelease(call, service, method, null);
    }
    return method + service + (call == null ? 0 : 1);
  }

  /** {@code DubboAdviceBenchmark.consumerCall} up to and including {@code steps}. */
  private Object consumerSteps(SluiceContext request, int steps) {
    SluiceContext previous = SluiceContext.replace(request);
    try {
      String[] headers = governor.outboundHeaders();
      for (int i = 0; i + 1 < headers.length; i += 2) {
        calls.consumerInvocation.setAttachment(headers[i], headers[i + 1]);
      }
      if (steps < LOOKUP) {
        return headers;
      }
      Object call =
          governor.rpcCall(
              BService.class,
              calls.consumerInvocation.getMethodName(),
              calls.consumerInvocation.getParameterTypes(),
              GovernanceHooks.DUBBO_CONSUMER);
      if (steps < SERVICE || call == null) {
        return call;
      }
      long service = governor.rpcAcquireService(call, args);
      long method = service < 0 ? 0 : governor.rpcAcquireMethod(call, args, service);
      Object chosen =
          steps >= METHOD ? governor.rpcLaneInvokers(calls.routed, calls.directory) : call;
      if (steps >= ALL && (service > 0 || method > 0)) {
        governor.rpcRelease(call, service, method, null);
      }
      return chosen;
    } finally {
      SluiceContext.restore(previous);
    }
  }
}
