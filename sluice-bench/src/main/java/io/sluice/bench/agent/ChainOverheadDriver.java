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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.ToDoubleFunction;

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
 * request), the CPU it used per request it served, its RSS and threads; end to end, the latency
 * percentiles. The agent's added latency per hop is the added end-to-end p50 divided by the four
 * services a request crosses (the reference's "RT per hop"). The rate is per instance of gateway, a
 * and c; b's two instances share it (half each, by the lane or, without lane routing, by round
 * robin). Every application gets the same fixed, pre-touched heap ({@code -Xms256m -Xmx256m
 * -XX:+AlwaysPreTouch}, serial GC; {@code --jvm-options} to change), so an RSS difference is what
 * the agent adds outside the heap, not how far each copy's garbage happened to spread through it. A
 * window in which a copy fell behind the offered rate is marked and left out of the summaries.
 *
 * <pre>
 * mvn -B -q -pl sluice-bench -am package -DskipTests
 * java -XX:+UseSerialGC -Xmx1g -cp sluice-bench/target/benchmarks.jar \
 *   io.sluice.bench.agent.ChainOverheadDriver --rates 250,500 --warmup 90 --settle 20 \
 *   --measure 60 --rounds 3
 * </pre>
 *
 * <p>{@code --mode alternating} drives one copy at a time, the other idle, in windows next to each
 * other (the order flips every round), for rates the machine cannot serve twice over; {@code
 * --spring 3.2|3.5|4.0} picks the Spring generation (default 3.5); {@code --app-cpus 1} runs every
 * application under {@code taskset -c 1}, {@code --driver-cpus 0} pins this JVM (the driver, and
 * both servers, started after it and inheriting its pinning); by default nothing is pinned.
 */
public final class ChainOverheadDriver {
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

  private ChainOverheadDriver() {}

  /** One instance over one measured window. */
  record InstanceFigures(
      String label,
      double cpuPoints,
      double jitPoints,
      double cpuMicrosPerRequest,
      double rssMib,
      int threads) {
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
      int non200) {}

  /**
   * Whether the copy kept up with the offered rate: every request answered, the median within 20 ms
   * (a request through the idle chain takes a few) and none but the slowest 1 % late by a second. A
   * window that did not measures the machine's backlog, not the agent.
   */
  static boolean sustained(ChainFigures chain, int offered) {
    return chain.errors() == 0
        && chain.completed() == offered
        && chain.p50Micros() < 20_000
        && chain.p99Micros() < 1_000_000;
  }

  /** Both copies over one window at one rate. */
  record Window(
      int round,
      double rate,
      int offered,
      ChainFigures none,
      ChainFigures agent,
      String loadBefore,
      String loadAfter) {
    boolean sustained() {
      return ChainOverheadDriver.sustained(none, offered)
          && ChainOverheadDriver.sustained(agent, offered);
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
    String appCpus = options.get("app-cpus");
    String driverCpus = options.get("driver-cpus");
    boolean alternating = "alternating".equals(options.getOrDefault("mode", "side-by-side"));
    Path javaHome = Path.of(options.getOrDefault("java-home", System.getProperty("java.home")));
    List<String> jvmOptions =
        List.of(
            options
                .getOrDefault(
                    "jvm-options", "-Xms256m -Xmx256m -XX:+AlwaysPreTouch -XX:+UseSerialGC")
                .split(" "));
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
            + " %d rounds, apps on CPUs %s, driver on CPUs %s, %d cores, JVM %s %s, load %s, work"
            + " %s%n",
        generation,
        path,
        alternating ? "one copy at a time (alternating)" : "side by side",
        rates,
        warmup,
        settle,
        measure,
        rounds,
        appCpus == null ? "any" : appCpus,
        driverCpus == null ? "any" : driverCpus,
        Runtime.getRuntime().availableProcessors(),
        javaHome,
        jvmOptions,
        loadAverage(),
        work);

    List<String> prefix = appCpus == null ? List.of() : List.of("taskset", "-c", appCpus);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    DemoChain none = null;
    DemoChain agent = null;
    try {
      Future<DemoChain> startingNone =
          pool.submit(
              () ->
                  chain(
                      generation,
                      examples,
                      null,
                      javaHome,
                      jvmOptions,
                      prefix,
                      work.resolve("none")));
      Future<DemoChain> startingAgent =
          pool.submit(
              () ->
                  chain(
                      generation,
                      examples,
                      agentJar,
                      javaHome,
                      jvmOptions,
                      prefix,
                      work.resolve("agent")));
      none = startingNone.get();
      agent = startingAgent.get();
      for (DemoChain chain : List.of(none, agent)) {
        publishDocuments(chain);
      }
      Thread.sleep(2_000); // the agent's watcher applies a change within a second
      System.out.printf(
          Locale.ROOT,
          "gray share of b's calls, 400 requests: none %s, agent %s%n",
          grayShare(none, path),
          grayShare(agent, path));

      Copy noneCopy = new Copy("none", none, client(), path);
      Copy agentCopy = new Copy("agent", agent, client(), path);
      List<Copy> both = List.of(noneCopy, agentCopy);
      double top = rates.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
      // Ten JVMs compiling their hot paths at once can take both cores for a while: ramp up.
      System.out.printf(Locale.ROOT, "warming up to %.0f req/s over %d s…%n", top, warmup);
      for (List<Copy> together :
          alternating ? List.of(List.of(noneCopy), List.of(agentCopy)) : List.of(both)) {
        for (double share : List.of(0.25, 0.5, 1.0)) {
          drive(pool, together, top * share, Math.max(1, warmup / 3));
        }
      }

      List<Window> windows = new ArrayList<>();
      for (int round = 1; round <= rounds; round++) {
        for (double rate : rates) {
          String loadBefore = loadAverage();
          Map<String, ChainFigures> figures = new LinkedHashMap<>();
          if (alternating) {
            // One copy at a time, the other idle; the order flips every round.
            List<Copy> order = round % 2 == 1 ? both : List.of(agentCopy, noneCopy);
            for (Copy copy : order) {
              figures.putAll(window(pool, List.of(copy), rate, settle, measure));
            }
          } else {
            figures.putAll(window(pool, both, rate, settle, measure));
          }
          Window window =
              new Window(
                  round,
                  rate,
                  (int) (rate * measure),
                  figures.get("none"),
                  figures.get("agent"),
                  loadBefore,
                  loadAverage());
          windows.add(window);
          print(window);
        }
      }
      for (double rate : rates) {
        summarize(windows.stream().filter(w -> w.rate() == rate).toList());
      }
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

  static DemoChain chain(
      SpringGeneration generation,
      Path examples,
      Path agentJar,
      Path javaHome,
      List<String> jvmOptions,
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

  /** One copy of the chain as the driver sees it, and the path it is driven on. */
  record Copy(String mode, DemoChain chain, HttpClient http, String path) {}

  /**
   * Drives {@code copies} together at {@code rate}: {@code settle} seconds, then {@code measure}
   * seconds measured. Returns each copy's figures by mode.
   */
  static Map<String, ChainFigures> window(
      ExecutorService pool, List<Copy> copies, double rate, int settle, int measure)
      throws Exception {
    drive(pool, copies, rate, settle);
    Map<ChainInstance, ProcessSample> before = samples(copies);
    long started = System.nanoTime();
    List<OpenLoopLoad.Result> loads = drive(pool, copies, rate, measure);
    double seconds = (System.nanoTime() - started) / 1e9;
    Map<ChainInstance, ProcessSample> after = samples(copies);
    Map<String, ChainFigures> figures = new LinkedHashMap<>();
    for (int i = 0; i < copies.size(); i++) {
      Copy copy = copies.get(i);
      figures.put(
          copy.mode(), figures(copy.mode(), copy.chain(), loads.get(i), before, after, seconds));
    }
    return figures;
  }

  /** Drives {@code copies} at {@code rate} over the same {@code seconds}; results in order. */
  static List<OpenLoopLoad.Result> drive(
      ExecutorService pool, List<Copy> copies, double rate, int seconds) throws Exception {
    List<Future<OpenLoopLoad.Result>> running = new ArrayList<>();
    for (Copy copy : copies) {
      URI uri = copy.chain().gateway(copy.path());
      running.add(
          pool.submit(
              () -> OpenLoopLoad.run(copy.http(), i -> uri, rate, Duration.ofSeconds(seconds))));
    }
    List<OpenLoopLoad.Result> results = new ArrayList<>();
    for (Future<OpenLoopLoad.Result> result : running) {
      results.add(result.get());
    }
    return results;
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
      instances.add(
          new InstanceFigures(
              instance.label(),
              100.0 * cpuMicros / (seconds * 1e6) / QUOTA_CORES,
              100.0
                  * after.get(instance).jitMicrosSince(before.get(instance))
                  / (seconds * 1e6)
                  / QUOTA_CORES,
              cpuMicros / served,
              after.get(instance).rssKib() / 1024.0,
              after.get(instance).threads()));
    }
    return new ChainFigures(
        mode,
        instances,
        load.percentileMicros(0.50),
        load.percentileMicros(0.99),
        load.percentileMicros(0.999),
        load.completed(),
        load.errors(),
        load.non200());
  }

  static void print(Window w) {
    System.out.printf(
        Locale.ROOT,
        "round %d, %.0f req/s, load %s -> %s%s%n",
        w.round(),
        w.rate(),
        w.loadBefore(),
        w.loadAfter(),
        w.sustained() ? "" : "  NOT SUSTAINED: a copy fell behind the offered rate");
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
  }

  /** The median over the rounds of one rate, with the paired (same-window) differences. */
  static void summarize(List<Window> all) {
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
            + " sustained windows of %d (paired differences: median, min..max)%n%n",
        first.rate(),
        windows.size(),
        all.size());
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
    int errors = windows.stream().mapToInt(w -> w.none().errors() + w.agent().errors()).sum();
    int non200 = windows.stream().mapToInt(w -> w.none().non200() + w.agent().non200()).sum();
    System.out.printf(Locale.ROOT, "%nerrors %d, non-200 %d over these windows%n", errors, non200);
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
