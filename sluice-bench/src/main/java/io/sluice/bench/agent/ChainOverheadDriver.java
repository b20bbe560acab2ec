package io.sluice.bench.agent;

import io.sluice.e2e.chain.ChainInstance;
import io.sluice.e2e.chain.DemoChain;
import io.sluice.e2e.chain.SpringGeneration;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * What the agent adds to the demo chain (issue 10's reference table): two copies of gateway → a → b
 * → c with a gray b, one without the agent and one under it, each with its own sluice-server, the
 * 50 % lane and a 10,000 QPS flow rule on every route published to both, driven side by side at the
 * same fixed arrival rate on {@code GET /a/httpTest} through the gateway (open loop, latency from
 * the intended send time), over the same seconds, so whatever else the machine does weighs on both
 * alike. {@code --path /a/dubboTest} drives the chain's Dubbo path instead (gateway → a over HTTP,
 * a → b → c over Dubbo; {@code /a/mixedTest}: a → b over Dubbo, b → c over HTTP), with a
 * never-reached flow rule on every Dubbo method too (the reference generation only, the one with
 * the Dubbo paths). On that generation each copy runs in a network namespace of its own, its server
 * included ({@link DemoChain}: Dubbo registers no loopback address), which needs root; the driver
 * reaches both gateways through a veth pair.
 *
 * <p>Per rate and round it reports, for each instance of each copy, the CPU it used as a percentage
 * of a 2-core quota (the reference's unit: 0.5 points at 500 requests/s is 20 µs of CPU per
 * request), the CPU it used per request it served, its RSS and threads, and its CPU per thread
 * group (from {@code /proc/PID/task}: which threads the agent copy's extra CPU is on); end to end,
 * the latency percentiles. The rate is per instance of gateway, a and c; b's two instances share it
 * (half each, by the lane or, without lane routing, by round robin).
 *
 * <p><b>Latency.</b> Side by side, both copies are driven from one schedule: request {@code i} is
 * due at the same instant in both ({@link OpenLoopLoad#runTogether}), so the agent's added latency
 * is read request by request, as the median of the paired differences ({@link PairedDifference}),
 * with the range of that median over six slices of the window as its resolution. The difference of
 * the two copies' p50s is printed too; either, per hop, is divided by the four services a request
 * crosses (the reference's "RT per hop"). At most {@code --max-in-flight} requests per copy are
 * outstanding (as wrk2 keeps a fixed set of connections), so a stall does not leave thousands of
 * connections and their buffers behind in the gateway; a copy's requests wait in its own queue, so
 * one copy's stall delays none of the other's, and a copy more than {@code --give-up-behind}
 * seconds behind in a measured window is given up for the rest of it (its backlog dropped); in the
 * warm-up and settle a copy that cannot keep up yet is kept at that many outstanding until the step
 * ends instead, so a cold chain warms for the whole warm-up. {@code --aa true} starts the agent's
 * copy without the agent as well: every difference it prints is the method's own floor.
 *
 * <p><b>Memory.</b> Every application gets the same fixed, pre-touched heap ({@code -Xms256m
 * -Xmx256m -XX:+AlwaysPreTouch}, serial GC) and Native Memory Tracking at summary level ({@code
 * --jvm-options} to change), so the heap's RSS is the same in both copies whatever their garbage
 * did. Before the warm-up and after the last window each instance's memory is read with {@code
 * jcmd} ({@link JvmMemory}): RSS, NMT's committed memory by category, the heap in use after a full
 * collection, and RSS outside NMT. What the agent adds shows in the categories (classes, code,
 * threads); direct buffers and malloc's retained memory grow with the most requests a copy ever had
 * in flight, the likely reason RSS alone moved by up to 100 MiB between runs of the same code.
 *
 * <p>A window in which a copy fell behind the offered rate is marked and left out of the summaries;
 * the mark says which copy, why ({@link #shortfall}) and how far behind it fell.
 *
 * <pre>
 * mvn -B -q -pl sluice-bench -am package -DskipTests
 * java -XX:+UseSerialGC -Xmx1g -cp sluice-bench/target/benchmarks.jar \
 *   io.sluice.bench.agent.ChainOverheadDriver --rates 250,500 --warmup 90 --settle 20 \
 *   --measure 60 --rounds 3
 * </pre>
 *
 * <p>{@code --mode alternating} drives one copy at a time, the other idle, in windows next to each
 * other (the order flips every round), for rates the machine cannot serve twice over. {@code --mode
 * interleaved} does the same in short windows ({@code --window 10} s, each after {@code
 * --window-settle 3} s of the same copy unmeasured), {@code --cycles 12} cycles of A B B A (then B
 * A A B), and reads the added CPU per request and p50 per hop as the median of the cycles'
 * differences with an order-statistic interval ({@link InterleavedWindows}): a linear drift cancels
 * within each cycle, and many cycles resolve what two 60 s windows minutes apart cannot. With
 * {@code --aa true} its estimates show the method's floor, a copy-to-copy difference included. When
 * the copies are driven one at a time, their warm-ups are interleaved too, step by step ({@link
 * #warmUpOrder}), the last step ending with the copy the first window drives.
 *
 * <p>{@code --agent-copy first|second} (default {@code second}) says which copy runs the agent: the
 * first is A of A B B A, the first driven in an alternating run, the first submitted for start
 * ({@link #agentCopy}). Every figure is still the agent's copy minus the other; the header and each
 * summary say which copy had it. Whatever sticks to a position (the first copy's start a moment
 * ahead, its windows' places in the cycles) then lands on the agent in one run and on the other
 * copy in the next: the mean of two runs, one each way, cancels a fixed first-to-second offset, and
 * half their difference estimates it:
 *
 * <pre>
 * java -XX:+UseSerialGC -Xmx1g -cp sluice-bench/target/benchmarks.jar \
 *   io.sluice.bench.agent.ChainOverheadDriver --path /a/dubboTest --rates 250 --mode interleaved \
 *   --warmup 180 --cycles 12 --window 10 --window-settle 3 --agent-copy second
 * java ... (the same) --agent-copy first
 * </pre>
 *
 * <p>{@code --spring 3.2|3.5|4.0} picks the Spring generation (default 3.5); {@code --app-cpus 1}
 * runs every application under {@code taskset -c 1}, {@code --driver-cpus 0} pins this JVM (the
 * driver, and both servers, started after it and inheriting its pinning); by default nothing is
 * pinned.
 */
public final class ChainOverheadDriver {
  /** How the copies are driven: both at once, one after the other, or in short ABBA windows. */
  static final List<String> MODES = List.of("side-by-side", "alternating", "interleaved");

  /**
   * The application arguments {@code --app-args} adds to every application of both copies (Spring
   * properties, e.g. {@code --dubbo.metrics.enable-rpc=false}), split at whitespace; none by
   * default. A setting that changes what the chain costs applies to both copies alike, so the
   * agent's difference is read against the same chain.
   */
  static List<String> appArguments(Map<String, String> options) {
    String arguments = options.getOrDefault("app-args", "").trim();
    if (arguments.isEmpty()) {
      return List.of();
    }
    List<String> split = List.of(arguments.split("\\s+"));
    for (String argument : split) {
      if (!argument.startsWith("--") || !argument.contains("=")) {
        throw new IllegalArgumentException(
            "--app-args takes --name=value arguments separated by spaces, not " + argument);
      }
    }
    return split;
  }

  /**
   * Which copy runs the agent ({@code --agent-copy first|second}, default second): {@link
   * InterleavedWindows#FIRST} or {@link InterleavedWindows#SECOND}. The first copy is A of A B B A
   * (the first measured window of an interleaved run, the last of the warm-up: {@link
   * #warmUpOrder}), the first driven in an alternating run's first round, and the first submitted
   * for start (both start at once), published to, and read. Two runs, one each way, put the agent
   * on either side of whatever sticks to a copy's position, so the mean of their two estimates
   * cancels a fixed first-to-second offset; their difference is twice that offset plus noise.
   */
  static int agentCopy(Map<String, String> options) {
    String copy = options.getOrDefault("agent-copy", "second");
    return switch (copy) {
      case "first" -> InterleavedWindows.FIRST;
      case "second" -> InterleavedWindows.SECOND;
      default ->
          throw new IllegalArgumentException("--agent-copy takes first or second, not " + copy);
    };
  }

  /** Which copy had the agent, in words for the header and the summaries. */
  static String agentOnWhichCopy(int agentCopy, boolean aa) {
    return String.format(
        Locale.ROOT,
        "%s the %s copy (--agent-copy %s; the first copy drives the first window)",
        aa ? "the \"agent\" copy (plain in this A/A run) is" : "the agent on",
        copyName(agentCopy),
        copyName(agentCopy));
  }

  /** "first" or "second", as {@code --agent-copy} takes it. */
  static String copyName(int copy) {
    return copy == InterleavedWindows.FIRST ? "first" : "second";
  }

  /** The copies in their order (first, second), the agent's at {@code agentCopy}. */
  static <T> List<T> inCopyOrder(T none, T agent, int agentCopy) {
    return agentCopy == InterleavedWindows.SECOND ? List.of(none, agent) : List.of(agent, none);
  }

  /**
   * {@code order} (which copy each window drives, by position) by role: {@link
   * InterleavedWindows#SECOND} where the window drives the agent's copy, {@link
   * InterleavedWindows#FIRST} where it drives the other, so differences read "agent minus none"
   * whichever position the agent's copy had.
   */
  static int[] byRole(int[] order, int agentCopy) {
    int[] roles = new int[order.length];
    for (int w = 0; w < order.length; w++) {
      roles[w] = order[w] == agentCopy ? InterleavedWindows.SECOND : InterleavedWindows.FIRST;
    }
    return roles;
  }

  /** The warm-up's rate steps, as shares of the top rate: ¼, ½, then all of it. */
  static final List<Double> WARM_UP_SHARES = List.of(0.25, 0.5, 1.0);

  /**
   * When the copies are driven one at a time (alternating, interleaved), the order of the copies
   * ({@link InterleavedWindows#FIRST}, {@link InterleavedWindows#SECOND}) in warm-up step {@code
   * step}: both in every step, second then first, then first then second, and so on, the last step
   * ending with the first copy, which the first measured window drives. Warming one copy through
   * all its steps and then the other left the first idle for the whole of the second's warm-up (180
   * s in the reference command) and compiling its hot paths minutes earlier, on a machine in
   * another state, than the second; the alternation keeps the copies' warm-ups interleaved, ends
   * each copy's within a step of the first window, and gives each the same seconds at every rate.
   */
  static int[] warmUpOrder(int step, int steps) {
    boolean secondFirst = (steps - 1 - step) % 2 == 0;
    return secondFirst
        ? new int[] {InterleavedWindows.SECOND, InterleavedWindows.FIRST}
        : new int[] {InterleavedWindows.FIRST, InterleavedWindows.SECOND};
  }

  /** The confidence of the interleaved mode's intervals. */
  static final double CONFIDENCE = 0.95;

  /** The services a request through the chain crosses. */
  static final int HOPS = 4;

  /** A 2-core quota, the reference's unit of CPU percentage points. */
  static final int QUOTA_CORES = 2;

  static final String LANES =
      "{\"lanes\":[{\"name\":\"gray-half\",\"tag\":\"gray\",\"percentage\":50}]}";

  static final Map<String, List<String>> ROUTES =
      Map.of(
          "gateway", List.of("a", "b"),
          "a", List.of("GET /a/httpTest", "GET /a/asyncTest"),
          "b", List.of("GET /b/httpTest"),
          "c", List.of("GET /c/httpTest"));

  /** The resources the Dubbo paths add, where the build has them. */
  static final Map<String, List<String>> DUBBO_RESOURCES =
      Map.of(
          "a", List.of("GET /a/dubboTest", "GET /a/mixedTest"),
          "b",
              List.of(
                  "io.sluice.examples.api.BService:dubboTest()",
                  "io.sluice.examples.api.BService:mixedTest()"),
          "c", List.of("io.sluice.examples.api.CService:dubboTest()"));

  /** The paths through the chain the driver can drive; the last two need the Dubbo paths. */
  static final List<String> PATHS =
      List.of("/a/httpTest", "/a/asyncTest", "/a/dubboTest", "/a/mixedTest");

  /**
   * Every application's JVM: the same fixed, pre-touched heap in both copies, so the heap's RSS is
   * the same whatever each copy's garbage did; Native Memory Tracking (summary level, a few
   * counters per allocation, alike in both copies) so the rest can be told apart by category.
   */
  static final String DEFAULT_JVM_OPTIONS =
      "-Xms256m -Xmx256m -XX:+AlwaysPreTouch -XX:+UseSerialGC -XX:NativeMemoryTracking=summary";

  /** Slices of a window over which the paired latency difference is also computed. */
  static final int PAIRED_BLOCKS = 6;

  /** The thread groups shown per service, the largest paired differences first. */
  static final int THREAD_GROUPS_SHOWN = 8;

  private ChainOverheadDriver() {}

  /** One instance over one measured window. */
  record InstanceFigures(
      String label,
      double cpuPoints,
      double jitPoints,
      double cpuMicrosPerRequest,
      double rssMib,
      int threads,
      Map<String, Double> threadGroupPoints) {
    /** The points spent outside the JIT compiler's threads. */
    double cpuPointsWithoutJit() {
      return cpuPoints - jitPoints;
    }
  }

  /** One copy of the chain over one measured window. */
  record ChainFigures(
      String mode,
      List<InstanceFigures> instances,
      double p50Micros,
      double p99Micros,
      double p999Micros,
      int completed,
      int errors,
      int non200,
      OpenLoopLoad.Lag lag) {}

  /** The median a copy must stay within: a request through the idle chain takes a few ms. */
  static final double SUSTAINED_P50_MICROS = 20_000;

  /** The 99th percentile a copy must stay within. */
  static final double SUSTAINED_P99_MICROS = 1_000_000;

  /**
   * Whether the copy kept up with the offered rate: every request answered with 200, the median
   * within 20 ms and none but the slowest 1 % late by a second. A window that did not measures the
   * machine's backlog, not the agent.
   */
  static boolean sustained(ChainFigures chain, int offered) {
    return shortfall(chain, offered) == null;
  }

  /**
   * Why the copy did not keep up with the offered rate, and how far behind it fell; null when it
   * did ({@link #sustained}).
   */
  static String shortfall(ChainFigures chain, int offered) {
    List<String> why = new ArrayList<>();
    OpenLoopLoad.Lag lag = chain.lag();
    if (lag.notSent() > 0) {
      why.add(
          String.format(
              Locale.ROOT,
              "given up %.0f s into the window, more than the allowed lag behind: %,d of %,d not"
                  + " sent; %,d answered while it was driven (%.0f req/s over those %.0f s; its"
                  + " CPU figures are over the whole window, idle after)",
              lag.gaveUpAtNanos() / 1e9,
              lag.notSent(),
              offered,
              chain.completed(),
              chain.completed() / Math.max(1e-9, lag.gaveUpAtNanos() / 1e9),
              lag.gaveUpAtNanos() / 1e9));
    } else if (chain.completed() + chain.errors() < offered) {
      why.add(String.format(Locale.ROOT, "%,d of %,d answered", chain.completed(), offered));
    }
    if (chain.errors() > 0) {
      why.add(String.format(Locale.ROOT, "%,d failed (no answer within 10 s)", chain.errors()));
    }
    if (chain.non200() > 0) {
      why.add(String.format(Locale.ROOT, "%,d answers not 200", chain.non200()));
    }
    if (!(chain.p50Micros() < SUSTAINED_P50_MICROS)) {
      why.add(
          String.format(
              Locale.ROOT,
              "p50 %.1f ms (limit %.0f)",
              chain.p50Micros() / 1000,
              SUSTAINED_P50_MICROS / 1000));
    }
    if (!(chain.p99Micros() < SUSTAINED_P99_MICROS)) {
      why.add(
          String.format(
              Locale.ROOT,
              "p99 %.2f s (limit %.0f)",
              chain.p99Micros() / 1e6,
              SUSTAINED_P99_MICROS / 1e6));
    }
    if (why.isEmpty()) {
      return null;
    }
    return chain.mode() + " copy: " + String.join(", ", why) + "; " + behind(lag);
  }

  /** How far behind its schedule a copy fell, in words. */
  static String behind(OpenLoopLoad.Lag lag) {
    return String.format(
        Locale.ROOT,
        "last request sent %.2f s after it was due, %,d waited for a free slot (longest %.2f s),"
            + " send lag p99 %.2f s, last answer %.2f s after the last due time",
        lag.behindAtEndNanos() / 1e9,
        lag.waitedForSlot(),
        lag.maxSlotWaitNanos() / 1e9,
        lag.p99SendLagNanos() / 1e9,
        lag.drainedNanos() / 1e9);
  }

  /**
   * The pacer's own lateness (the driver JVM not scheduled on time: the machine, alike for every
   * copy), when it is worth saying: over 50 ms.
   */
  static String driverLate(List<OpenLoopLoad.Result> loads) {
    long late = loads.stream().mapToLong(l -> l.lag().driverLateMaxNanos()).max().orElse(0);
    return late > 50_000_000
        ? String.format(Locale.ROOT, "; the driver itself woke up to %.2f s late", late / 1e9)
        : "";
  }

  /** Both copies over one window at one rate. */
  record Window(
      int round,
      double rate,
      int offered,
      ChainFigures none,
      ChainFigures agent,
      PairedDifference paired,
      String loadBefore,
      String loadAfter,
      String driverLate) {
    boolean sustained() {
      return ChainOverheadDriver.sustained(none, offered)
          && ChainOverheadDriver.sustained(agent, offered);
    }

    /**
     * Why the window does not count: each copy that fell behind, why and how far; null when both
     * kept up.
     */
    String verdict() {
      String noneShort = shortfall(none, offered);
      String agentShort = shortfall(agent, offered);
      if (noneShort == null && agentShort == null) {
        return null;
      }
      return (noneShort != null ? noneShort : "none copy kept up")
          + " | "
          + (agentShort != null ? agentShort : "agent copy kept up");
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options = AgentOverheadDriver.parse(args);
    Path examples = Path.of(options.getOrDefault("examples-dir", "sluice-examples"));
    Path agentJar =
        Path.of(options.getOrDefault("agent-jar", "sluice-agent/target/sluice-agent.jar"));
    SpringGeneration generation = generation(options.getOrDefault("spring", "3.5"));
    String path = options.getOrDefault("path", "/a/httpTest");
    if (!PATHS.contains(path)) {
      throw new IllegalArgumentException("--path takes one of " + PATHS + ", not " + path);
    }
    if (!generation.hasDubbo() && !path.equals("/a/httpTest") && !path.equals("/a/asyncTest")) {
      throw new IllegalArgumentException(
          path + " is a Dubbo path: only --spring 3.5 (the reference build) has it");
    }
    List<Double> rates = new ArrayList<>();
    for (String rate : options.getOrDefault("rates", "250,500").split(",")) {
      rates.add(Double.parseDouble(rate.trim()));
    }
    int warmup = Integer.parseInt(options.getOrDefault("warmup", "60"));
    int settle = Integer.parseInt(options.getOrDefault("settle", "20"));
    int measure = Integer.parseInt(options.getOrDefault("measure", "60"));
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
    int maxInFlight = Integer.parseInt(options.getOrDefault("max-in-flight", "64"));
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("--max-in-flight must be at least 1, not " + maxInFlight);
    }
    int giveUpSeconds =
        Integer.parseInt(
            options.getOrDefault(
                "give-up-behind", Long.toString(OpenLoopLoad.GIVE_UP_BEHIND.toSeconds())));
    if (giveUpSeconds < 1) {
      throw new IllegalArgumentException(
          "--give-up-behind must be at least 1 s, not " + giveUpSeconds);
    }
    Pace pace = new Pace(maxInFlight, Duration.ofSeconds(giveUpSeconds));
    String appCpus = options.get("app-cpus");
    String driverCpus = options.get("driver-cpus");
    String mode = options.getOrDefault("mode", "side-by-side");
    if (!MODES.contains(mode)) {
      throw new IllegalArgumentException("--mode takes one of " + MODES + ", not " + mode);
    }
    boolean alternating = mode.equals("alternating");
    boolean interleaved = mode.equals("interleaved");
    int cycles = Integer.parseInt(options.getOrDefault("cycles", "12"));
    int windowSeconds = Integer.parseInt(options.getOrDefault("window", "10"));
    int windowSettle = Integer.parseInt(options.getOrDefault("window-settle", "3"));
    if (cycles < 1 || windowSeconds < 1 || windowSettle < 0) {
      throw new IllegalArgumentException(
          "--cycles and --window must be at least 1, --window-settle at least 0: "
              + cycles
              + ", "
              + windowSeconds
              + ", "
              + windowSettle);
    }
    // A/A: the copy labelled "agent" runs without the agent too, so every difference printed is
    // what the method cannot tell apart from nothing.
    boolean aa = Boolean.parseBoolean(options.getOrDefault("aa", "false"));
    int agentPosition = agentCopy(options);
    Path javaHome = Path.of(options.getOrDefault("java-home", System.getProperty("java.home")));
    List<String> jvmOptions =
        List.of(options.getOrDefault("jvm-options", DEFAULT_JVM_OPTIONS).split(" "));
    List<String> appArguments = appArguments(options);
    Path work =
        options.containsKey("work")
            ? Path.of(options.get("work"))
            : Files.createTempDirectory("sluice-chain-bench");

    if (driverCpus != null) {
      AgentOverheadDriver.pinThisProcess(driverCpus);
    }
    System.out.printf(
        Locale.ROOT,
        "chain overhead: %s, GET %s, %s, rates %s req/s, warm-up %d s, settle %d s, measured %d s,"
            + " %d rounds, at most %d requests in flight per copy, a copy more than %d s behind given"
            + " up for the rest of that run, apps on CPUs %s, driver on CPUs"
            + " %s, %d cores, JVM %s %s, application arguments %s, load %s, work %s, %s%s%n",
        generation,
        path,
        interleaved
            ? String.format(
                Locale.ROOT,
                "interleaved: %d cycles of %d s windows A B B A / B A A B, each after %d s of the"
                    + " same copy unmeasured (--measure, --settle and --rounds unused)",
                cycles,
                windowSeconds,
                windowSettle)
            : alternating ? "one copy at a time (alternating)" : "side by side, requests paired",
        rates,
        warmup,
        settle,
        measure,
        rounds,
        pace.maxInFlight(),
        pace.giveUpBehind().toSeconds(),
        appCpus == null ? "any" : appCpus,
        driverCpus == null ? "any" : driverCpus,
        Runtime.getRuntime().availableProcessors(),
        javaHome,
        jvmOptions,
        appArguments,
        loadAverage(),
        work,
        agentOnWhichCopy(agentPosition, aa),
        aa
            ? "; A/A: NEITHER copy runs the agent (the \"agent\" columns are a second plain copy)"
            : "");

    List<String> prefix = appCpus == null ? List.of() : List.of("taskset", "-c", appCpus);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    DemoChain none = null;
    DemoChain agent = null;
    try {
      // Submitted in the copies' order; both start at once.
      Map<String, Future<DemoChain>> starting = new LinkedHashMap<>();
      for (String role : inCopyOrder("none", "agent", agentPosition)) {
        Path jar = role.equals("agent") && !aa ? agentJar : null;
        starting.put(
            role,
            pool.submit(
                () ->
                    chain(
                        generation,
                        examples,
                        jar,
                        javaHome,
                        jvmOptions,
                        appArguments,
                        prefix,
                        work.resolve(role))));
      }
      none = starting.get("none").get();
      agent = starting.get("agent").get();
      for (DemoChain chain : inCopyOrder(none, agent, agentPosition)) {
        publishDocuments(chain);
      }
      Thread.sleep(2_000); // the agent's watcher applies a change within a second
      Map<String, String> grayShares = new LinkedHashMap<>();
      for (String role : inCopyOrder("none", "agent", agentPosition)) {
        grayShares.put(role, grayShare(role.equals("none") ? none : agent, path));
      }
      System.out.printf(
          Locale.ROOT,
          "gray share of b's calls, 400 requests: none %s, agent %s%n",
          grayShares.get("none"),
          grayShares.get("agent"));

      Copy noneCopy = new Copy("none", none, client(), path);
      Copy agentCopy = new Copy("agent", agent, client(), path);
      // The copies in their order: index InterleavedWindows.FIRST, then SECOND.
      List<Copy> both = inCopyOrder(noneCopy, agentCopy, agentPosition);
      Map<ChainInstance, JvmMemory> memoryAtStart = memory(both, javaHome, work);
      double top = rates.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
      // Ten JVMs compiling their hot paths at once can take both cores for a while: ramp up.
      System.out.printf(Locale.ROOT, "warming up to %.0f req/s over %d s…%n", top, warmup);
      int stepSeconds = Math.max(1, warmup / WARM_UP_SHARES.size());
      for (int step = 0; step < WARM_UP_SHARES.size(); step++) {
        double rate = top * WARM_UP_SHARES.get(step);
        if (alternating || interleaved) {
          for (int copy : warmUpOrder(step, WARM_UP_SHARES.size())) {
            warmUp(List.of(both.get(copy)), rate, stepSeconds, pace);
          }
        } else {
          warmUp(both, rate, stepSeconds, pace);
        }
      }

      if (interleaved) {
        for (double rate : rates) {
          int[] order = InterleavedWindows.order(cycles);
          List<ChainFigures> measured =
              interleave(both, order, rate, windowSettle, windowSeconds, pace);
          summarizeInterleaved(
              rate, (int) (rate * windowSeconds), order, measured, agentPosition, aa);
        }
        summarizeMemory(none, agent, memoryAtStart, memory(both, javaHome, work));
        return;
      }
      List<Window> windows = new ArrayList<>();
      for (int round = 1; round <= rounds; round++) {
        for (double rate : rates) {
          String loadBefore = loadAverage();
          Map<String, ChainFigures> figures = new LinkedHashMap<>();
          PairedDifference paired = null;
          String driverLate = "";
          if (alternating) {
            // One copy at a time, the other idle; the order flips every round.
            List<Copy> order = round % 2 == 1 ? both : List.of(both.get(1), both.get(0));
            for (Copy copy : order) {
              Measured measured = window(List.of(copy), rate, settle, measure, pace);
              figures.putAll(measured.figures());
              if (!measured.driverLate().isEmpty()) {
                driverLate = measured.driverLate() + " (" + copy.mode() + "'s window)";
              }
            }
          } else {
            Measured measured = window(both, rate, settle, measure, pace);
            figures.putAll(measured.figures());
            driverLate = measured.driverLate();
            paired =
                PairedDifference.of(
                    measured.loads().get(both.indexOf(noneCopy)).byRequestNanos(),
                    measured.loads().get(both.indexOf(agentCopy)).byRequestNanos(),
                    PAIRED_BLOCKS);
          }
          Window window =
              new Window(
                  round,
                  rate,
                  (int) (rate * measure),
                  figures.get("none"),
                  figures.get("agent"),
                  paired,
                  loadBefore,
                  loadAverage(),
                  driverLate);
          windows.add(window);
          print(window);
        }
      }
      Map<ChainInstance, JvmMemory> memoryAtEnd = memory(both, javaHome, work);
      for (double rate : rates) {
        summarize(windows.stream().filter(w -> w.rate() == rate).toList(), agentPosition, aa);
      }
      summarizeMemory(none, agent, memoryAtStart, memoryAtEnd);
    } finally {
      pool.shutdownNow();
      if (none != null) {
        none.close();
      }
      if (agent != null) {
        agent.close();
      }
    }
  }

  /**
   * One warm-up step: {@code together} kept busy at {@code rate} for {@code seconds} ({@link
   * #keepBusy}), and a line on how each kept up.
   */
  static void warmUp(List<Copy> together, double rate, int seconds, Pace pace)
      throws InterruptedException {
    List<OpenLoopLoad.Result> loads = keepBusy(together, rate, seconds, pace);
    StringBuilder line =
        new StringBuilder(String.format(Locale.ROOT, "  warm-up %.0f req/s:", rate));
    for (int i = 0; i < together.size(); i++) {
      line.append(
          String.format(
              Locale.ROOT,
              " %s p50 %.0f µs, p99 %.0f µs, %d done (%.0f req/s), %d errors, %d non-200,"
                  + " last request sent %.2f s late, %d waited for a slot%s;",
              together.get(i).mode(),
              loads.get(i).percentileMicros(0.50),
              loads.get(i).percentileMicros(0.99),
              loads.get(i).completed(),
              loads.get(i).completed() / (double) seconds,
              loads.get(i).errors(),
              loads.get(i).non200(),
              loads.get(i).lag().behindAtEndNanos() / 1e9,
              loads.get(i).lag().waitedForSlot(),
              loads.get(i).lag().notSent() > 0
                  ? String.format(
                      Locale.ROOT,
                      ", BEHIND: kept at %d in flight, %d still waiting at the end dropped"
                          + " (not yet this rate)",
                      pace.maxInFlight(),
                      loads.get(i).lag().notSent())
                  : ""));
    }
    System.out.println(line.append(driverLate(loads).replace("; ", " ")));
  }

  /**
   * Drives the copies one at a time in the order given ({@link InterleavedWindows#order}: {@code
   * both.get(0)} for {@link InterleavedWindows#FIRST}), each window after {@code settle} seconds of
   * the same copy unmeasured; prints a line per window and returns each window's figures in order.
   */
  static List<ChainFigures> interleave(
      List<Copy> both, int[] order, double rate, int settle, int seconds, Pace pace)
      throws Exception {
    List<ChainFigures> measured = new ArrayList<>();
    int offered = (int) (rate * seconds);
    System.out.printf(
        Locale.ROOT,
        "%n%.0f req/s, interleaved, load %s: per window, the copy, end-to-end p50, and each"
            + " service's CPU µs per request it served (JIT's share in brackets)%n",
        rate,
        loadAverage());
    for (int w = 0; w < order.length; w++) {
      Copy copy = both.get(order[w]);
      Measured window = window(List.of(copy), rate, settle, seconds, pace);
      ChainFigures figures = window.figures().get(copy.mode());
      measured.add(figures);
      StringBuilder line =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "  cycle %2d window %d %-5s load %s p50 %7.1f µs, %d done |",
                  w / InterleavedWindows.WINDOWS_PER_CYCLE + 1,
                  w % InterleavedWindows.WINDOWS_PER_CYCLE + 1,
                  copy.mode(),
                  loadAverage().split(" ")[0],
                  figures.p50Micros(),
                  figures.completed()));
      for (InstanceFigures instance : figures.instances()) {
        line.append(
            String.format(
                Locale.ROOT,
                " %s %.0f (%.0f) |",
                instance.label(),
                instance.cpuMicrosPerRequest(),
                jitMicrosPerRequest(instance)));
      }
      String shortfall = shortfall(figures, offered);
      if (shortfall != null) {
        line.append("  NOT SUSTAINED: ").append(shortfall).append(window.driverLate());
      }
      System.out.println(line);
    }
    return measured;
  }

  /** The part of an instance's CPU per request that its JIT compiler threads spent. */
  static double jitMicrosPerRequest(InstanceFigures instance) {
    return instance.cpuPoints() > 0
        ? instance.cpuMicrosPerRequest() * instance.jitPoints() / instance.cpuPoints()
        : 0;
  }

  /**
   * The interleaved run's figures at one rate: per service, the added CPU per request (the agent's
   * copy minus the other, whichever position {@code agentCopy} gave it) as the median of the
   * cycles' differences ({@link InterleavedWindows}) with its order-statistic interval, with and
   * without the JIT's threads; end to end, the added p50 per hop the same way. {@code positions} is
   * which copy each window drove by position, as {@link InterleavedWindows#order} gave it.
   */
  static void summarizeInterleaved(
      double rate,
      int offered,
      int[] positions,
      List<ChainFigures> windows,
      int agentCopy,
      boolean aa) {
    // By role from here on: SECOND is the agent's copy, FIRST the other.
    int[] order = byRole(positions, agentCopy);
    java.util.function.Predicate<ChainFigures> counts = w -> sustained(w, offered);
    int cycles = order.length / InterleavedWindows.WINDOWS_PER_CYCLE;
    int counted =
        InterleavedWindows.cycleDifferences(order, windows, ChainFigures::p50Micros, counts).length;
    System.out.printf(
        Locale.ROOT,
        "%n%.0f req/s at the gateway, a and c, interleaved: %d of %d cycles counted (every window"
            + " of a cycle sustained); added = the agent copy minus the none copy, %s; median of"
            + " the cycles' differences, [%.0f %% interval from order statistics; its coverage]%n%n",
        rate,
        counted,
        cycles,
        agentOnWhichCopy(agentCopy, aa),
        CONFIDENCE * 100);
    if (counted == 0) {
      System.out.println("no cycle counted: no figures");
      return;
    }
    List<ChainFigures> nones = new ArrayList<>();
    List<ChainFigures> agents = new ArrayList<>();
    for (int w = 0; w < order.length; w++) {
      if (counts.test(windows.get(w))) {
        (order[w] == InterleavedWindows.SECOND ? agents : nones).add(windows.get(w));
      }
    }
    System.out.println(
        "| service | CPU µs per request, none copy (median of windows) | agent copy | added µs per"
            + " request | interval | added outside the JIT | interval | RSS MiB, none → agent"
            + " (last window) | threads added |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    ChainFigures lastNone = nones.get(nones.size() - 1);
    ChainFigures lastAgent = agents.get(agents.size() - 1);
    for (int i = 0; i < windows.get(0).instances().size(); i++) {
      int index = i;
      ToDoubleFunction<ChainFigures> cpu = w -> w.instances().get(index).cpuMicrosPerRequest();
      ToDoubleFunction<ChainFigures> outsideJit =
          w ->
              w.instances().get(index).cpuMicrosPerRequest()
                  - jitMicrosPerRequest(w.instances().get(index));
      InterleavedWindows.MedianInterval added =
          InterleavedWindows.MedianInterval.of(
              InterleavedWindows.cycleDifferences(order, windows, cpu, counts), CONFIDENCE);
      InterleavedWindows.MedianInterval addedOutsideJit =
          InterleavedWindows.MedianInterval.of(
              InterleavedWindows.cycleDifferences(order, windows, outsideJit, counts), CONFIDENCE);
      System.out.printf(
          Locale.ROOT,
          "| %s | %.1f | %.1f | %+.1f | %s | %+.1f | %s | %.0f → %.0f | %+d |%n",
          lastNone.instances().get(index).label(),
          medianOf(nones, cpu),
          medianOf(agents, cpu),
          added.median(),
          interval(added),
          addedOutsideJit.median(),
          interval(addedOutsideJit),
          lastNone.instances().get(index).rssMib(),
          lastAgent.instances().get(index).rssMib(),
          lastAgent.instances().get(index).threads() - lastNone.instances().get(index).threads());
    }
    InterleavedWindows.MedianInterval p50 =
        InterleavedWindows.MedianInterval.of(
            InterleavedWindows.cycleDifferences(order, windows, w -> w.p50Micros() / HOPS, counts),
            CONFIDENCE);
    System.out.printf(
        Locale.ROOT,
        "%nend to end p50 %.1f → %.1f µs (medians of windows); added per hop (÷ %d) %+.1f µs %s%n",
        medianOf(nones, ChainFigures::p50Micros),
        medianOf(agents, ChainFigures::p50Micros),
        HOPS,
        p50.median(),
        interval(p50));
    int errors = windows.stream().mapToInt(w -> w.errors()).sum();
    int non200 = windows.stream().mapToInt(w -> w.non200()).sum();
    System.out.printf(Locale.ROOT, "errors %d, non-200 %d over all windows%n", errors, non200);
  }

  static String interval(InterleavedWindows.MedianInterval m) {
    return String.format(
        Locale.ROOT, "[%+.1f..%+.1f; %.1f %%]", m.low(), m.high(), 100 * m.coverage());
  }

  static double medianOf(List<ChainFigures> windows, ToDoubleFunction<ChainFigures> f) {
    return AgentOverheadDriver.median(windows.stream().map(f::applyAsDouble).toList());
  }

  static DemoChain chain(
      SpringGeneration generation,
      Path examples,
      Path agentJar,
      Path javaHome,
      List<String> jvmOptions,
      List<String> appArguments,
      List<String> prefix,
      Path work)
      throws Exception {
    DemoChain.Builder builder =
        DemoChain.builder()
            .generation(generation)
            .examplesDir(examples)
            .javaHome(javaHome)
            .jvmOptions(jvmOptions)
            .commandPrefix(prefix)
            .workDir(work)
            // A fixed request pool, so thread counts compare the agent, not Tomcat's growth.
            .appArgument("--server.tomcat.threads.max=32")
            .appArgument("--server.tomcat.threads.min-spare=32")
            .startTimeout(Duration.ofMinutes(10));
    appArguments.forEach(builder::appArgument);
    if (agentJar == null) {
      builder.withoutAgent();
    } else {
      builder.agent(agentJar);
    }
    return builder.start();
  }

  /**
   * The demo's documents: the 50 % lane and a never-reached flow rule on every route (and Dubbo
   * method, where the build has them).
   */
  static void publishDocuments(DemoChain chain) throws IOException, InterruptedException {
    chain.publish(DemoChain.SLUICE_GROUP, "lanes", LANES);
    for (Map.Entry<String, List<String>> app : ROUTES.entrySet()) {
      List<String> resources = new ArrayList<>(app.getValue());
      if (chain.generation().hasDubbo()) {
        resources.addAll(DUBBO_RESOURCES.getOrDefault(app.getKey(), List.of()));
      }
      StringBuilder rules = new StringBuilder("[");
      for (String route : resources) {
        rules
            .append(rules.length() > 1 ? "," : "")
            .append("{\"resource\":\"")
            .append(route)
            .append("\",\"grade\":1,\"count\":10000}");
      }
      chain.publish(
          DemoChain.SENTINEL_GROUP, app.getKey() + "-flow-rules", rules.append(']').toString());
    }
  }

  static String grayShare(DemoChain chain, String path) throws IOException, InterruptedException {
    int gray = 0;
    int n = 400;
    for (int i = 0; i < n; i++) {
      HttpResponse<String> response = chain.get(path);
      if (response.statusCode() != 200) {
        return "request " + i + " answered " + response.statusCode() + ": " + response.body();
      }
      if (response.body().contains("b[gray]")) {
        gray++;
      }
    }
    return String.format(Locale.ROOT, "%.1f %%", 100.0 * gray / n);
  }

  static HttpClient client() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  /**
   * How each copy is driven besides its rate: at most {@code maxInFlight} requests outstanding, and
   * given up for the rest of a run (its waiting requests dropped, nothing more offered) once its
   * oldest waiting request is {@code giveUpBehind} overdue.
   */
  record Pace(int maxInFlight, Duration giveUpBehind) {}

  /** One copy of the chain as the driver sees it, and the path it is driven on. */
  record Copy(String mode, DemoChain chain, HttpClient http, String path) {}

  /** One window's figures by mode, and each copy's responses in the copies' order. */
  record Measured(
      Map<String, ChainFigures> figures, List<OpenLoopLoad.Result> loads, String driverLate) {}

  /**
   * Drives {@code copies} together at {@code rate}: {@code settle} seconds kept busy ({@link
   * #keepBusy}), then {@code measure} seconds measured, where a copy too far behind is given up.
   */
  static Measured window(List<Copy> copies, double rate, int settle, int measure, Pace pace)
      throws Exception {
    List<OpenLoopLoad.Result> settled = keepBusy(copies, rate, settle, pace);
    for (int i = 0; i < copies.size(); i++) {
      OpenLoopLoad.Result load = settled.get(i);
      if (load.lag().behindAtEndNanos() > 1_000_000_000L
          || load.lag().notSent() > 0
          || load.errors() > 0) {
        System.out.printf(
            Locale.ROOT,
            "  settling at %.0f req/s for %d s, the %s copy fell behind: %d errors, %d not sent,"
                + " p50 %.1f ms, %s%s%n",
            rate,
            settle,
            copies.get(i).mode(),
            load.errors(),
            load.lag().notSent(),
            load.percentileMicros(0.5) / 1000,
            behind(load.lag()),
            driverLate(settled));
      }
    }
    Map<ChainInstance, ProcessSample> before = samples(copies);
    long started = System.nanoTime();
    List<OpenLoopLoad.Result> loads = drive(copies, rate, measure, pace);
    double seconds = (System.nanoTime() - started) / 1e9;
    Map<ChainInstance, ProcessSample> after = samples(copies);
    Map<String, ChainFigures> figures = new LinkedHashMap<>();
    for (int i = 0; i < copies.size(); i++) {
      Copy copy = copies.get(i);
      figures.put(
          copy.mode(), figures(copy.mode(), copy.chain(), loads.get(i), before, after, seconds));
    }
    return new Measured(figures, loads, driverLate(loads));
  }

  /**
   * Drives {@code copies} at {@code rate} from one schedule (request {@code i} due at the same
   * instant in every copy), a copy more than {@link Pace#giveUpBehind} behind given up; results in
   * order.
   */
  static List<OpenLoopLoad.Result> drive(List<Copy> copies, double rate, int seconds, Pace pace)
      throws InterruptedException {
    return OpenLoopLoad.runTogether(
        clients(copies),
        targets(copies),
        rate,
        Duration.ofSeconds(seconds),
        pace.maxInFlight(),
        pace.giveUpBehind());
  }

  /**
   * Warms {@code copies} at {@code rate} from one schedule: a copy that cannot keep up yet is not
   * given up but kept at {@link Pace#maxInFlight} outstanding until the schedule ends ({@link
   * OpenLoopLoad#keepBusy}). Giving a cold copy up left it idle for most of each warm-up step: in
   * the 2026-12-02 01:24 run every step was given up after 12–23 s of its 30, so the chain entered
   * the measured window with a fraction of the requests a warm-up is for.
   */
  static List<OpenLoopLoad.Result> keepBusy(List<Copy> copies, double rate, int seconds, Pace pace)
      throws InterruptedException {
    return OpenLoopLoad.keepBusy(
        clients(copies), targets(copies), rate, Duration.ofSeconds(seconds), pace.maxInFlight());
  }

  private static List<HttpClient> clients(List<Copy> copies) {
    return copies.stream().map(Copy::http).toList();
  }

  private static List<IntFunction<URI>> targets(List<Copy> copies) {
    List<IntFunction<URI>> targets = new ArrayList<>();
    for (Copy copy : copies) {
      URI uri = copy.chain().gateway(copy.path());
      targets.add(i -> uri);
    }
    return targets;
  }

  /**
   * Every instance's memory ({@link JvmMemory}: NMT by category, heap after a full collection,
   * RSS), read one instance at a time between windows.
   */
  static Map<ChainInstance, JvmMemory> memory(List<Copy> copies, Path javaHome, Path scratch)
      throws IOException, InterruptedException {
    Map<ChainInstance, JvmMemory> memory = new LinkedHashMap<>();
    for (Copy copy : copies) {
      for (ChainInstance instance : copy.chain().instances()) {
        memory.put(instance, JvmMemory.read(javaHome, instance.pid(), scratch));
      }
    }
    return memory;
  }

  static Map<ChainInstance, ProcessSample> samples(List<Copy> copies) throws IOException {
    Map<ChainInstance, ProcessSample> samples = new LinkedHashMap<>();
    for (Copy copy : copies) {
      for (ChainInstance instance : copy.chain().instances()) {
        samples.put(instance, ProcessSample.of(instance.pid()));
      }
    }
    return samples;
  }

  static ChainFigures figures(
      String mode,
      DemoChain chain,
      OpenLoopLoad.Result load,
      Map<ChainInstance, ProcessSample> before,
      Map<ChainInstance, ProcessSample> after,
      double seconds) {
    List<InstanceFigures> instances = new ArrayList<>();
    for (ChainInstance instance : chain.instances()) {
      double cpuMicros = after.get(instance).cpuMicrosSince(before.get(instance));
      // An application with two instances (b, or c with a gray c) serves half the requests on each:
      // by round robin without lanes, by the 50 % lane with them.
      long siblings =
          chain.instances().stream().filter(i -> i.app().equals(instance.app())).count();
      double served = Math.max(1, load.completed()) / (double) siblings;
      Map<String, Double> groupPoints = new TreeMap<>();
      after
          .get(instance)
          .groupMicrosSince(before.get(instance))
          .forEach((group, micros) -> groupPoints.put(group, points(micros, seconds)));
      instances.add(
          new InstanceFigures(
              instance.label(),
              points(cpuMicros, seconds),
              points(after.get(instance).jitMicrosSince(before.get(instance)), seconds),
              cpuMicros / served,
              after.get(instance).rssKib() / 1024.0,
              after.get(instance).threads(),
              groupPoints));
    }
    return new ChainFigures(
        mode,
        instances,
        load.percentileMicros(0.50),
        load.percentileMicros(0.99),
        load.percentileMicros(0.999),
        load.completed(),
        load.errors(),
        load.non200(),
        load.lag());
  }

  /** CPU microseconds over {@code seconds} as points of the 2-core quota. */
  static double points(double cpuMicros, double seconds) {
    return 100.0 * cpuMicros / (seconds * 1e6) / QUOTA_CORES;
  }

  static void print(Window w) {
    System.out.printf(
        Locale.ROOT,
        "round %d, %.0f req/s, load %s -> %s%s%n",
        w.round(),
        w.rate(),
        w.loadBefore(),
        w.loadAfter(),
        w.sustained()
            ? ""
            : "  NOT SUSTAINED (the measured window): " + w.verdict() + w.driverLate());
    for (ChainFigures chain : List.of(w.none(), w.agent())) {
      StringBuilder line =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "  %-5s p50 %7.1f µs, p99 %8.1f µs, p99.9 %8.1f µs, %d done, %d errors, %d non-200 |",
                  chain.mode(),
                  chain.p50Micros(),
                  chain.p99Micros(),
                  chain.p999Micros(),
                  chain.completed(),
                  chain.errors(),
                  chain.non200()));
      for (InstanceFigures instance : chain.instances()) {
        line.append(
            String.format(
                Locale.ROOT,
                " %s %.2f %% (JIT %.2f) %.0f MiB %d thr |",
                instance.label(),
                instance.cpuPoints(),
                instance.jitPoints(),
                instance.rssMib(),
                instance.threads()));
      }
      System.out.println(line);
    }
    if (w.paired() != null) {
      PairedDifference d = w.paired();
      System.out.printf(
          Locale.ROOT,
          "  paired: agent minus none, median of %d request pairs %+.1f µs (%+.1f µs per hop);"
              + " 95 %% interval if requests were independent %+.1f..%+.1f; over %d slices of the"
              + " window %+.1f..%+.1f%n",
          d.pairs(),
          d.medianMicros(),
          d.medianMicros() / HOPS,
          d.ciLowMicros(),
          d.ciHighMicros(),
          PAIRED_BLOCKS,
          d.blockLowMicros(),
          d.blockHighMicros());
    }
  }

  /**
   * The median over the rounds of one rate, with the paired (same-window) differences; the header
   * says which copy ({@code agentCopy}) had the agent.
   */
  static void summarize(List<Window> all, int agentCopy, boolean aa) {
    if (all.isEmpty()) {
      return;
    }
    List<Window> windows = all.stream().filter(Window::sustained).toList();
    if (windows.isEmpty()) {
      System.out.printf(
          Locale.ROOT,
          "%n%.0f req/s: no window was sustained (a copy fell behind in all %d): no figures%n",
          all.get(0).rate(),
          all.size());
      return;
    }
    Window first = windows.get(0);
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "%.0f req/s at the gateway, a and c (b[base] and b[gray] about half each): medians of %d"
            + " sustained windows of %d (paired differences: median, min..max); %s%n%n",
        first.rate(),
        windows.size(),
        all.size(),
        agentOnWhichCopy(agentCopy, aa));
    System.out.println(
        "| service | CPU %, no agent | CPU %, agent | added points | added points outside the JIT | added CPU µs per request served | RSS MiB, no agent | RSS MiB, agent | added MiB | threads added |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|");
    for (int i = 0; i < first.none().instances().size(); i++) {
      int index = i;
      ToDoubleFunction<Window> noneCpu = w -> w.none().instances().get(index).cpuPoints();
      ToDoubleFunction<Window> agentCpu = w -> w.agent().instances().get(index).cpuPoints();
      ToDoubleFunction<Window> noneRss = w -> w.none().instances().get(index).rssMib();
      ToDoubleFunction<Window> agentRss = w -> w.agent().instances().get(index).rssMib();
      System.out.printf(
          Locale.ROOT,
          "| %s | %.2f | %.2f | %s | %s | %s | %.0f | %.0f | %s | %+.0f |%n",
          first.none().instances().get(index).label(),
          median(windows, noneCpu),
          median(windows, agentCpu),
          paired(windows, w -> agentCpu.applyAsDouble(w) - noneCpu.applyAsDouble(w), "%+.2f"),
          paired(
              windows,
              w ->
                  w.agent().instances().get(index).cpuPointsWithoutJit()
                      - w.none().instances().get(index).cpuPointsWithoutJit(),
              "%+.2f"),
          paired(
              windows,
              w ->
                  w.agent().instances().get(index).cpuMicrosPerRequest()
                      - w.none().instances().get(index).cpuMicrosPerRequest(),
              "%+.1f"),
          median(windows, noneRss),
          median(windows, agentRss),
          paired(windows, w -> agentRss.applyAsDouble(w) - noneRss.applyAsDouble(w), "%+.0f"),
          median(
              windows,
              w ->
                  w.agent().instances().get(index).threads()
                      - w.none().instances().get(index).threads()));
    }
    System.out.println();
    System.out.println(
        "| end to end | no agent | agent | added (paired) | added per hop (÷ " + HOPS + ") |");
    System.out.println("|---|---|---|---|---|");
    for (Map.Entry<String, ToDoubleFunction<ChainFigures>> percentile :
        Map.<String, ToDoubleFunction<ChainFigures>>of(
                "p50 µs", ChainFigures::p50Micros,
                "p99 µs", ChainFigures::p99Micros,
                "p99.9 µs", ChainFigures::p999Micros)
            .entrySet()
            .stream()
            .sorted(Map.Entry.comparingByKey())
            .toList()) {
      ToDoubleFunction<ChainFigures> f = percentile.getValue();
      System.out.printf(
          Locale.ROOT,
          "| %s | %.1f | %.1f | %s | %s |%n",
          percentile.getKey(),
          median(windows, w -> f.applyAsDouble(w.none())),
          median(windows, w -> f.applyAsDouble(w.agent())),
          paired(windows, w -> f.applyAsDouble(w.agent()) - f.applyAsDouble(w.none()), "%+.1f"),
          paired(
              windows,
              w -> (f.applyAsDouble(w.agent()) - f.applyAsDouble(w.none())) / HOPS,
              "%+.1f"));
    }
    List<Window> paired = windows.stream().filter(w -> w.paired() != null).toList();
    if (!paired.isEmpty()) {
      System.out.printf(
          Locale.ROOT,
          "| p50 of the request pairs' differences (each window's median) | | | %s | %s |%n",
          paired(paired, w -> w.paired().medianMicros(), "%+.1f"),
          paired(paired, w -> w.paired().medianMicros() / HOPS, "%+.1f"));
      System.out.printf(
          Locale.ROOT,
          "%nper window, the paired median over %d slices of it, per hop: %s%n",
          PAIRED_BLOCKS,
          paired.stream()
              .map(
                  w ->
                      String.format(
                          Locale.ROOT,
                          "%+.1f..%+.1f",
                          w.paired().blockLowMicros() / HOPS,
                          w.paired().blockHighMicros() / HOPS))
              .collect(Collectors.joining(", ")));
    }
    int errors = windows.stream().mapToInt(w -> w.none().errors() + w.agent().errors()).sum();
    int non200 = windows.stream().mapToInt(w -> w.none().non200() + w.agent().non200()).sum();
    System.out.printf(Locale.ROOT, "%nerrors %d, non-200 %d over these windows%n", errors, non200);
    summarizeThreads(windows);
  }

  /**
   * Per service, the thread groups whose CPU differs most between the copies (paired per window):
   * where the agent copy's extra CPU goes, by thread.
   */
  static void summarizeThreads(List<Window> windows) {
    Window first = windows.get(0);
    System.out.printf(
        Locale.ROOT,
        "%nCPU by thread group (points; threads named alike with digits as #, 15 characters as"
            + " the kernel keeps them), the %d largest paired differences per service%n",
        THREAD_GROUPS_SHOWN);
    for (int i = 0; i < first.none().instances().size(); i++) {
      int index = i;
      Set<String> groups = new TreeSet<>();
      for (Window w : windows) {
        groups.addAll(w.none().instances().get(index).threadGroupPoints().keySet());
        groups.addAll(w.agent().instances().get(index).threadGroupPoints().keySet());
      }
      Map<String, Double> added = new LinkedHashMap<>();
      for (String group : groups) {
        added.put(
            group,
            median(
                windows,
                w -> groupPoints(w.agent(), index, group) - groupPoints(w.none(), index, group)));
      }
      System.out.printf(
          Locale.ROOT,
          "%n| %s: thread group | no agent | agent | added (paired) |%n|---|---|---|---|%n",
          first.none().instances().get(index).label());
      added.entrySet().stream()
          .sorted(Comparator.comparingDouble(e -> -Math.abs(e.getValue())))
          .limit(THREAD_GROUPS_SHOWN)
          .forEach(
              e ->
                  System.out.printf(
                      Locale.ROOT,
                      "| %s | %.2f | %.2f | %s |%n",
                      e.getKey(),
                      median(windows, w -> groupPoints(w.none(), index, e.getKey())),
                      median(windows, w -> groupPoints(w.agent(), index, e.getKey())),
                      paired(
                          windows,
                          w ->
                              groupPoints(w.agent(), index, e.getKey())
                                  - groupPoints(w.none(), index, e.getKey()),
                          "%+.2f")));
    }
  }

  static double groupPoints(ChainFigures chain, int instance, String group) {
    return chain.instances().get(instance).threadGroupPoints().getOrDefault(group, 0.0);
  }

  /**
   * Each service's memory in both copies, before the warm-up and after the last window: RSS, what
   * Native Memory Tracking counts as committed (and which categories differ), the heap in use after
   * a full collection, and RSS outside NMT.
   */
  static void summarizeMemory(
      DemoChain none,
      DemoChain agent,
      Map<ChainInstance, JvmMemory> atStart,
      Map<ChainInstance, JvmMemory> atEnd) {
    System.out.printf(
        Locale.ROOT,
        "%nmemory, MiB, none → agent (added): RSS before the warm-up and after the last window;"
            + " committed as Native Memory Tracking counts it after the last window, and the"
            + " categories that differ by 1 MiB or more; Java heap in use after a full collection;"
            + " RSS beyond NMT's committed total (malloc's retained memory, mapped files)%n%n");
    System.out.println(
        "| service | RSS at start | RSS at end | NMT committed at end | added by NMT category | heap after full GC | RSS outside NMT |");
    System.out.println("|---|---|---|---|---|---|---|");
    for (int i = 0; i < none.instances().size(); i++) {
      JvmMemory noneStart = atStart.get(none.instances().get(i));
      JvmMemory agentStart = atStart.get(agent.instances().get(i));
      JvmMemory noneEnd = atEnd.get(none.instances().get(i));
      JvmMemory agentEnd = atEnd.get(agent.instances().get(i));
      String categories;
      if (noneEnd.unavailable() != null || agentEnd.unavailable() != null) {
        categories = noneEnd.unavailable() != null ? noneEnd.unavailable() : agentEnd.unavailable();
      } else {
        Set<String> names = new TreeSet<>(noneEnd.committedKibByCategory().keySet());
        names.addAll(agentEnd.committedKibByCategory().keySet());
        categories =
            names.stream()
                .map(
                    name ->
                        Map.entry(
                            name,
                            (agentEnd.committedKibByCategory().getOrDefault(name, 0L)
                                    - noneEnd.committedKibByCategory().getOrDefault(name, 0L))
                                / 1024.0))
                .filter(e -> Math.abs(e.getValue()) >= 1.0)
                .sorted(Comparator.comparingDouble(e -> -Math.abs(e.getValue())))
                .map(e -> String.format(Locale.ROOT, "%s %+.1f", e.getKey(), e.getValue()))
                .collect(Collectors.joining(", "));
      }
      System.out.printf(
          Locale.ROOT,
          "| %s | %s | %s | %s | %s | %s | %s |%n",
          none.instances().get(i).label(),
          mib(noneStart.rssKib(), agentStart.rssKib()),
          mib(noneEnd.rssKib(), agentEnd.rssKib()),
          noneEnd.unavailable() == null && agentEnd.unavailable() == null
              ? mib(noneEnd.committedKib(), agentEnd.committedKib())
              : "—",
          categories.isEmpty() ? "none by 1 MiB" : categories,
          noneEnd.heapUsedAfterGcKib() >= 0 && agentEnd.heapUsedAfterGcKib() >= 0
              ? mib(noneEnd.heapUsedAfterGcKib(), agentEnd.heapUsedAfterGcKib())
              : "—",
          noneEnd.unavailable() == null && agentEnd.unavailable() == null
              ? mib(noneEnd.outsideNmtKib(), agentEnd.outsideNmtKib())
              : "—");
    }
  }

  /** "none → agent (+added)" in MiB. */
  static String mib(long noneKib, long agentKib) {
    return String.format(
        Locale.ROOT,
        "%.0f → %.0f (%+.1f)",
        noneKib / 1024.0,
        agentKib / 1024.0,
        (agentKib - noneKib) / 1024.0);
  }

  static double median(List<Window> windows, ToDoubleFunction<Window> f) {
    return AgentOverheadDriver.median(windows.stream().map(f::applyAsDouble).toList());
  }

  static String paired(List<Window> windows, ToDoubleFunction<Window> difference, String format) {
    List<Double> values = windows.stream().map(difference::applyAsDouble).toList();
    double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    return String.format(Locale.ROOT, format, AgentOverheadDriver.median(values))
        + " ("
        + String.format(Locale.ROOT, format, min)
        + ".."
        + String.format(Locale.ROOT, format, max)
        + ")";
  }

  static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException e) {
      return "unknown";
    }
  }

  static SpringGeneration generation(String version) {
    return switch (version) {
      case "3.2" -> SpringGeneration.SPRING_BOOT_3_2;
      case "3.5" -> SpringGeneration.SPRING_BOOT_3_5;
      case "4.0" -> SpringGeneration.SPRING_BOOT_4_0;
      default ->
          throw new IllegalArgumentException("--spring takes 3.2, 3.5 or 4.0, not " + version);
    };
  }
}
