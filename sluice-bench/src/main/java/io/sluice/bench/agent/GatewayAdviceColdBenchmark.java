package io.sluice.bench.agent;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
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
 * The gateway request of {@link GatewayAdviceBenchmark}, and its steps, each timed alone with cold
 * caches, as in {@link DubboAdviceColdBenchmark}: before every call an untimed sweep reads one long
 * per 64-byte line of a {@code sweepKiB} buffer (65536: twice a 32 MiB L3, so every line and page
 * walk goes to memory). The variants run interleaved, in a shuffled order per round, each call
 * timed on its own; JMH's score of {@code components} is their mixture and means nothing. Each fork
 * prints, per variant, its median minus the median of {@code baseline} (the timer alone, as cold),
 * with quartiles ({@code cold:} lines), and the paired differences of its medians ({@code pair:}
 * lines). Quote the median over forks, the forks' range, and how many forks agree in sign.
 *
 * <p>The registries' clocks are fakes moved 100 us per call (untimed); the trial setup runs every
 * variant hot ({@link #HOT_CALLS} times) first, so the cold calls run C2 code.
 *
 * <p>Variants ({@code demo} rules: a lane entered by a header the request carries, a flow rule on
 * the route that never limits):
 *
 * <ul>
 *   <li>{@code gateway}: the whole request (scope, entry, route headers, resource, permit, lane
 *       pick, release); {@code gatewayNoRules}: the same with nothing to govern.
 *   <li>{@code gateway1Scope} .. {@code gateway6Lanes}: the request cut after step n, on the same
 *       gateway as {@code gateway}, so step n's cold cost is the difference to step n-1 (in the
 *       context of the steps before it). {@code onlyLaneHeaderWrite}: the entry's write of the lane
 *       header into that gateway's request alone.
 *   <li>The pair, on three more gateways that each run exactly two variants per round, so that none
 *       is touched more often than the others: {@code pairSlot} (routes by the per-route slots, as
 *       the agent does), {@code pairSlotCopy} (set up alike: the A/A control, how much two
 *       identical setups differ by where their objects lie) and {@code pairById} (routes resolved
 *       the way they were before the slots: the id read through a method handle, then the id map,
 *       on every request), each with the whole request and, as {@code onlyRouteResource}, {@code
 *       onlyRouteResourceCopy}, {@code onlyRouteResourceById}, the route's resource alone. Paired:
 *       {@code pairById} against {@code pairSlot}, A/A {@code pairSlotCopy} against {@code
 *       pairSlot}. (The stepped gateway runs nine variants per round; it reads 1 to 3.5 us faster
 *       than a gateway that runs two, as much as the change being measured, so it stays out of the
 *       pair; the {@code bias:} line prints that gap.)
 * </ul>
 *
 * <pre>
 * java -cp sluice-bench/target/benchmarks.jar org.openjdk.jmh.Main GatewayAdviceColdBenchmark \
 *     -p sweepKiB=65536 -f 3 | grep -E 'cold:|pair:|bias:'
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 1, time = 2)
@Measurement(iterations = 3, time = 5)
@Fork(3)
public class GatewayAdviceColdBenchmark {
  static final int HOT_CALLS = 30_000;

  static final String[] VARIANTS = {
    "baseline",
    "gateway",
    "gatewayNoRules",
    "gateway1Scope",
    "gateway2Entry",
    "gateway3Headers",
    "gateway4Resource",
    "gateway5Permit",
    "gateway6Lanes",
    "onlyLaneHeaderWrite",
    "pairSlot",
    "pairSlotCopy",
    "pairById",
    "onlyRouteResource",
    "onlyRouteResourceCopy",
    "onlyRouteResourceById",
  };

  private static final long NANOS_PER_CALL = 100_000;

  @Param({"demo"})
  public String rules;

  @Param({"2048", "65536"})
  public int sweepKiB;

  private final GatewayAdviceBenchmark calls = new GatewayAdviceBenchmark();
  private final GatewayAdviceBenchmark ungoverned = new GatewayAdviceBenchmark();
  private final GatewayAdviceBenchmark slot = new GatewayAdviceBenchmark();
  private final GatewayAdviceBenchmark copy = new GatewayAdviceBenchmark();
  private final GatewayAdviceBenchmark byId = new GatewayAdviceBenchmark();
  private final GatewayAdviceBenchmark[] gateways = {calls, ungoverned, slot, copy, byId};
  private final long[] clock = new long[1];
  private long warmSink;
  private Object warmObject;
  private ColdRounds rounds;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    for (GatewayAdviceBenchmark gateway : gateways) {
      gateway.rules = gateway == ungoverned ? "none" : rules;
      gateway.routeLookup = gateway == byId ? "id" : "slot";
      gateway.ticker = () -> clock[0];
      gateway.setUp();
    }
    for (int i = 0; i < HOT_CALLS; i++) {
      for (int v = 0; v < VARIANTS.length; v++) {
        prepare();
        warmSink += run(v, null);
      }
    }
    prepare();
    rounds = new ColdRounds(VARIANTS, sweepKiB);
  }

  @Setup(Level.Iteration)
  public void iteration(IterationParams params) {
    rounds.measuring(params.getType() == IterationType.MEASUREMENT);
  }

  /** Prints each variant's median minus the baseline's, with quartiles, and the pairs, in us. */
  @TearDown(Level.Trial)
  public void report() {
    for (GatewayAdviceBenchmark gateway : gateways) {
      gateway.check();
    }
    StringBuilder out = new StringBuilder(rounds.coldLines());
    out.append(rounds.pairLine("whole request", "pairSlot", "pairById", "pairSlotCopy"))
        .append(
            rounds.pairLine(
                "route resource",
                "onlyRouteResource",
                "onlyRouteResourceById",
                "onlyRouteResourceCopy"));
    out.append(
        String.format(
            Locale.ROOT,
            "bias: sweepKiB=%d stepped gateway - pairSlot %+7.2f us  (the same request on a gateway"
                + " run nine times per round against one run twice)%n",
            sweepKiB,
            (rounds.median("gateway") - rounds.median("pairSlot")) / 1e3));
    System.out.print(out);
  }

  /**
   * Picks the next variant, prepares the request, then evicts the caches: one read per 64-byte line
   * of the buffer. Untimed.
   */
  @Setup(Level.Invocation)
  public void sweep() {
    rounds.upcoming();
    prepare();
    rounds.evictCaches();
  }

  /** Moves the clock; every request arrives without the headers the last one had written. */
  private void prepare() {
    clock[0] += NANOS_PER_CALL;
    for (GatewayAdviceBenchmark gateway : gateways) {
      gateway.clearHeaders();
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
        return calls.request(GatewayAdviceBenchmark.ALL);
      case 2:
        return ungoverned.request(GatewayAdviceBenchmark.ALL);
      case 3:
        return calls.request(GatewayAdviceBenchmark.SCOPE);
      case 4:
        return calls.request(GatewayAdviceBenchmark.ENTRY);
      case 5:
        return calls.request(GatewayAdviceBenchmark.HEADERS);
      case 6:
        return calls.request(GatewayAdviceBenchmark.RESOURCE);
      case 7:
        return calls.request(GatewayAdviceBenchmark.PERMIT);
      case 8:
        return calls.request(GatewayAdviceBenchmark.LANES);
      case 9:
        return calls.governor.writeRequestHeader(
                calls.request, io.sluice.agent.bootstrap.SluiceContext.Headers.LANE, "gray")
            ? 1
            : 0;
      case 10:
        return slot.request(GatewayAdviceBenchmark.ALL);
      case 11:
        return copy.request(GatewayAdviceBenchmark.ALL);
      case 12:
        return byId.request(GatewayAdviceBenchmark.ALL);
      case 13:
        return consume(sink, slot.routeResource());
      case 14:
        return consume(sink, copy.routeResource());
      case 15:
        return consume(sink, byId.routeResource());
      default:
        throw new IllegalStateException("variant " + variant);
    }
  }

  private long consume(Blackhole sink, Object result) {
    if (sink != null) {
      sink.consume(result);
    } else {
      warmObject = result;
    }
    return 0;
  }
}
