package io.sluice.bench.agent;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the agent costs a Spring Boot application: the same application jar started without and with
 * the agent, in alternating rounds, each driven at a fixed arrival rate on {@code GET
 * /orders/{id}}, with a flow rule on every route of the application that is never reached (count
 * 1,000,000). Reports per mode the start time, loaded classes, latency percentiles (from the
 * intended send time), process CPU per request (from {@code /proc/PID/stat}), RSS and threads.
 *
 * <p>The rules reach the agent through its on-disk rule cache, written before the start, with the
 * config center address pointing at a closed port: the agent then enforces them from the first
 * request and its watcher only backs off in the background, so the figures are the per-request cost
 * of governance and not of a server's presence. The application is pinned to CPU 1 and the driver
 * to CPU 0 when {@code taskset} exists.
 *
 * <pre>
 * mvn -B -q -pl sluice-agent,sluice-e2e/apps/boot3-app,sluice-bench -am package -DskipTests
 * java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.agent.AgentOverheadDriver \
 *   --app-jar sluice-e2e/apps/boot3-app/target/boot3-app.jar \
 *   --agent-jar sluice-agent/target/sluice-agent.jar --rate 500 --warmup 30 --measure 60 --rounds 5
 * </pre>
 *
 * <p>The agent keeps the classes it wove in its cache directory, so a start after the first loads
 * no Byte Buddy; the driver shares one cache directory across its launches and fills it with one
 * unmeasured start first. {@code --cold-weave true} gives every launch a fresh cache instead, which
 * measures the first start after installing or upgrading the agent.
 *
 * <p>{@code --measure 0} measures start-up only; {@code --pin false} runs without {@code taskset};
 * {@code --side-by-side true} runs both applications at once on the same core and drives them over
 * the same seconds, so the machine's other load weighs on both alike (see {@link
 * #measureSideBySide}).
 */
public final class AgentOverheadDriver {
  static final String APP_NAME = "bench-app";

  /** Every route of the test application; each gets a rule that is never reached. */
  static final List<String> ROUTES =
      List.of(
          "GET /orders/{id}",
          "GET /work",
          "POST /control/work-delay",
          "GET /control/work-calls",
          "GET /fail",
          "GET /call/{client}",
          "GET /ctx/{kind}",
          "GET /libs");

  private AgentOverheadDriver() {}

  record Measurement(
      String mode,
      long startMillis,
      long startCpuMillis,
      long loadedClasses,
      double p50Micros,
      double p99Micros,
      double p999Micros,
      double cpuMicrosPerRequest,
      double rssMib,
      int threads,
      int errors,
      int non200) {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = parse(args);
    Path appJar = Path.of(require(options, "app-jar"));
    Path agentJar = Path.of(require(options, "agent-jar"));
    Path java =
        Path.of(
            options.getOrDefault("java", ProcessHandle.current().info().command().orElse("java")));
    double rate = Double.parseDouble(options.getOrDefault("rate", "1000"));
    int warmup = Integer.parseInt(options.getOrDefault("warmup", "30"));
    int measure = Integer.parseInt(options.getOrDefault("measure", "60"));
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "2"));
    boolean sideBySide = "true".equals(options.get("side-by-side"));
    boolean coldWeave = "true".equals(options.get("cold-weave"));
    boolean pin =
        !"false".equals(options.get("pin")) && Files.isExecutable(Path.of("/usr/bin/taskset"));
    Path work = Files.createTempDirectory("sluice-agent-bench");
    if (pin) {
      pinThisProcess("0");
    }
    System.out.printf(
        Locale.ROOT,
        "agent overhead: %s, %.0f req/s, warm-up %d s, measured %d s, %d rounds, %s, pinned=%s,"
            + " woven-class cache %s, java %s%n",
        appJar.getFileName(),
        rate,
        warmup,
        measure,
        rounds,
        sideBySide ? "side by side" : "one after the other",
        pin,
        coldWeave ? "fresh per launch" : "shared, filled by a first unmeasured start",
        java);
    if (!coldWeave) {
      try (RunningApp filling = launch("agent", java, appJar, agentJar, work, pin, false)) {
        System.out.printf(
            Locale.ROOT,
            "(unmeasured start filling the woven-class cache: %d ms)%n",
            filling.startMillis());
      }
    }

    List<Measurement> results = new ArrayList<>();
    List<Double> pairedCpu = new ArrayList<>();
    List<Double> pairedP50 = new ArrayList<>();
    List<Double> pairedStart = new ArrayList<>();
    List<Double> pairedStartCpu = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      List<Measurement> pair;
      if (sideBySide) {
        pair =
            measureSideBySide(java, appJar, agentJar, work, rate, warmup, measure, pin, coldWeave);
      } else {
        pair = new ArrayList<>();
        for (String mode : List.of("none", "agent")) {
          pair.add(
              measureOnce(
                  mode, java, appJar, agentJar, work, rate, warmup, measure, pin, coldWeave));
        }
      }
      pair.forEach(m -> System.out.println(format(m)));
      results.addAll(pair);
      pairedCpu.add(pair.get(1).cpuMicrosPerRequest() - pair.get(0).cpuMicrosPerRequest());
      pairedP50.add(pair.get(1).p50Micros() - pair.get(0).p50Micros());
      pairedStart.add(
          100.0
              * (pair.get(1).startMillis() - pair.get(0).startMillis())
              / pair.get(0).startMillis());
      pairedStartCpu.add(
          100.0
              * (pair.get(1).startCpuMillis() - pair.get(0).startCpuMillis())
              / pair.get(0).startCpuMillis());
    }
    System.out.println();
    System.out.println(
        "| mode | start ms | start CPU ms | classes | p50 µs | p99 µs | p99.9 µs | CPU µs/req | RSS MiB | threads |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|");
    Measurement none = median(results, "none");
    Measurement agent = median(results, "agent");
    System.out.println(row(none));
    System.out.println(row(agent));
    System.out.printf(
        Locale.ROOT,
        "| added (median of rounds) | %+d (%+.1f%%) | %+d (%+.1f%%) | %+d | %+.1f | %+.1f | %+.1f | %+.2f | %+.1f | %+d |%n",
        agent.startMillis - none.startMillis,
        100.0 * (agent.startMillis - none.startMillis) / none.startMillis,
        agent.startCpuMillis - none.startCpuMillis,
        100.0 * (agent.startCpuMillis - none.startCpuMillis) / none.startCpuMillis,
        agent.loadedClasses - none.loadedClasses,
        agent.p50Micros - none.p50Micros,
        agent.p99Micros - none.p99Micros,
        agent.p999Micros - none.p999Micros,
        agent.cpuMicrosPerRequest - none.cpuMicrosPerRequest,
        agent.rssMib - none.rssMib,
        agent.threads - none.threads);
    System.out.printf(
        Locale.ROOT,
        "paired rounds (agent minus none): start %% %s, median %+.1f%%; start CPU %% %s, median"
            + " %+.1f%%%n",
        signed(pairedStart),
        median(pairedStart),
        signed(pairedStartCpu),
        median(pairedStartCpu));
    if (measure > 0) {
      System.out.printf(
          Locale.ROOT,
          "paired rounds (agent minus none): CPU µs/req %s, median %+.2f; p50 µs %s, median"
              + " %+.1f%n",
          signed(pairedCpu),
          median(pairedCpu),
          signed(pairedP50),
          median(pairedP50));
    }
  }

  /** Pins every thread of this JVM (the driver) to {@code cpus}, in {@code taskset}'s list form. */
  static void pinThisProcess(String cpus) throws IOException, InterruptedException {
    new ProcessBuilder("taskset", "-apc", cpus, Long.toString(ProcessHandle.current().pid()))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start()
        .waitFor();
  }

  static String signed(List<Double> values) {
    return values.stream()
        .map(v -> String.format(Locale.ROOT, "%+.1f", v))
        .collect(java.util.stream.Collectors.joining(" "));
  }

  static double median(List<Double> values) {
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    int n = sorted.length;
    return n == 0
        ? Double.NaN
        : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** One started application: its process and what its start-up cost. */
  record RunningApp(
      String mode,
      Process process,
      long pid,
      HttpClient http,
      String base,
      long startMillis,
      long startCpuMillis,
      long loadedClasses)
      implements AutoCloseable {
    @Override
    public void close() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }

  static Measurement measureOnce(
      String mode,
      Path java,
      Path appJar,
      Path agentJar,
      Path work,
      double rate,
      int warmup,
      int measure,
      boolean pin,
      boolean coldWeave)
      throws Exception {
    try (RunningApp app = launch(mode, java, appJar, agentJar, work, pin, coldWeave)) {
      if (measure == 0) {
        // Start-up only: no load, no latency or CPU-per-request figures.
        ProcessSample now = ProcessSample.of(app.pid());
        return measurement(app, null, now, now);
      }
      OpenLoopLoad.run(app.http(), app.base(), rate, Duration.ofSeconds(warmup));
      ProcessSample before = ProcessSample.of(app.pid());
      OpenLoopLoad.Result load =
          OpenLoopLoad.run(app.http(), app.base(), rate, Duration.ofSeconds(measure));
      return measurement(app, load, before, ProcessSample.of(app.pid()));
    }
  }

  /**
   * Both applications at once, on the same core, driven at the same rate over the same seconds: the
   * machine's other load then falls on both alike, so their difference is steadier than that of
   * rounds taken one after the other. Returns the two measurements, without the agent first.
   */
  static List<Measurement> measureSideBySide(
      Path java,
      Path appJar,
      Path agentJar,
      Path work,
      double rate,
      int warmup,
      int measure,
      boolean pin,
      boolean coldWeave)
      throws Exception {
    try (RunningApp none = launch("none", java, appJar, agentJar, work, pin, coldWeave);
        RunningApp agent = launch("agent", java, appJar, agentJar, work, pin, coldWeave)) {
      ExecutorService drivers = Executors.newFixedThreadPool(2);
      try {
        loadTogether(drivers, none, agent, rate, warmup);
        ProcessSample noneBefore = ProcessSample.of(none.pid());
        ProcessSample agentBefore = ProcessSample.of(agent.pid());
        List<OpenLoopLoad.Result> loads = loadTogether(drivers, none, agent, rate, measure);
        ProcessSample noneAfter = ProcessSample.of(none.pid());
        ProcessSample agentAfter = ProcessSample.of(agent.pid());
        return List.of(
            measurement(none, loads.get(0), noneBefore, noneAfter),
            measurement(agent, loads.get(1), agentBefore, agentAfter));
      } finally {
        drivers.shutdownNow();
      }
    }
  }

  static List<OpenLoopLoad.Result> loadTogether(
      ExecutorService drivers, RunningApp first, RunningApp second, double rate, int seconds)
      throws Exception {
    Future<OpenLoopLoad.Result> a =
        drivers.submit(
            () -> OpenLoopLoad.run(first.http(), first.base(), rate, Duration.ofSeconds(seconds)));
    Future<OpenLoopLoad.Result> b =
        drivers.submit(
            () ->
                OpenLoopLoad.run(second.http(), second.base(), rate, Duration.ofSeconds(seconds)));
    return List.of(a.get(), b.get());
  }

  /** Start-up figures always; load figures when {@code load} is not null. */
  static Measurement measurement(
      RunningApp app, OpenLoopLoad.Result load, ProcessSample before, ProcessSample after) {
    return new Measurement(
        app.mode(),
        app.startMillis(),
        app.startCpuMillis(),
        app.loadedClasses(),
        load == null ? Double.NaN : load.percentileMicros(0.50),
        load == null ? Double.NaN : load.percentileMicros(0.99),
        load == null ? Double.NaN : load.percentileMicros(0.999),
        load == null ? Double.NaN : after.cpuMicrosSince(before) / load.completed(),
        after.rssKib() / 1024.0,
        after.threads(),
        load == null ? 0 : load.errors(),
        load == null ? 0 : load.non200());
  }

  /**
   * @param coldWeave a fresh cache directory for this launch (else one shared by all launches)
   */
  static RunningApp launch(
      String mode, Path java, Path appJar, Path agentJar, Path work, boolean pin, boolean coldWeave)
      throws Exception {
    int port = freePort();
    List<String> command = new ArrayList<>();
    if (pin) {
      command.addAll(List.of("taskset", "-c", "1"));
    }
    command.add(java.toString());
    command.addAll(List.of("-Xms256m", "-Xmx256m", "-XX:+UseSerialGC"));
    if (mode.equals("agent")) {
      Path cache = work.resolve(coldWeave ? "cache-" + port : "cache");
      Path rules = cache.resolve("public/SENTINEL_GROUP/" + APP_NAME + "-flow-rules.json");
      Files.createDirectories(rules.getParent());
      StringBuilder json = new StringBuilder("[");
      for (String route : ROUTES) {
        json.append(json.length() > 1 ? "," : "")
            .append("{\"resource\":\"")
            .append(route)
            .append("\",\"grade\":1,\"count\":1000000}");
      }
      Files.writeString(rules, json.append(']').toString());
      command.add(
          "-javaagent:"
              + agentJar
              + "=server.addr=127.0.0.1:"
              + freePort()
              + ",cache.dir="
              + cache
              + ",log.dir="
              + work);
    }
    command.addAll(
        List.of(
            "-jar",
            appJar.toString(),
            "--server.port=" + port,
            "--spring.application.name=" + APP_NAME,
            "--spring.main.banner-mode=off",
            // A fixed request pool, so thread counts compare agents, not Tomcat's pool growth.
            "--server.tomcat.threads.max=32",
            "--server.tomcat.threads.min-spare=32"));
    Path output = work.resolve(mode + "-" + port + ".out");
    long launched = System.nanoTime();
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    String base = "http://127.0.0.1:" + port;
    try {
      long startMillis = awaitFirstResponse(http, base, process, output, launched);
      long pid = javaPid(process);
      long startCpuMillis =
          ProcessSample.of(pid).cpuTicks() * 1000 / ProcessSample.CLOCK_TICKS_PER_SECOND;
      return new RunningApp(
          mode, process, pid, http, base, startMillis, startCpuMillis, loadedClasses(java, pid));
    } catch (Exception | Error e) {
      process.destroyForcibly();
      throw e;
    }
  }

  /** Milliseconds from launching the JVM to its first answered request. */
  static long awaitFirstResponse(
      HttpClient http, String base, Process process, Path output, long launched) throws Exception {
    HttpRequest probe =
        HttpRequest.newBuilder(URI.create(base + "/orders/0"))
            .timeout(Duration.ofSeconds(5))
            .build();
    while (System.nanoTime() - launched < TimeUnit.SECONDS.toNanos(120)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "application exited:\n" + Files.readString(output, StandardCharsets.UTF_8));
      }
      try {
        if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return (System.nanoTime() - launched) / 1_000_000;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(10);
    }
    throw new IllegalStateException("application did not start");
  }

  // With taskset the process is taskset's exec'd java: same pid.
  static long javaPid(Process process) {
    return process.pid();
  }

  static long loadedClasses(Path java, long pid) {
    Path jcmd = java.resolveSibling("jcmd");
    try {
      Process p =
          new ProcessBuilder(jcmd.toString(), Long.toString(pid), "PerfCounter.print")
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor();
      Matcher m = Pattern.compile("java\\.cls\\.loadedClasses=(\\d+)").matcher(out);
      return m.find() ? Long.parseLong(m.group(1)) : -1;
    } catch (IOException | InterruptedException e) {
      return -1;
    }
  }

  static Measurement median(List<Measurement> all, String mode) {
    List<Measurement> of = all.stream().filter(m -> m.mode().equals(mode)).toList();
    return new Measurement(
        mode,
        (long) median(of, m -> (double) m.startMillis()),
        (long) median(of, m -> (double) m.startCpuMillis()),
        (long) median(of, m -> (double) m.loadedClasses()),
        median(of, Measurement::p50Micros),
        median(of, Measurement::p99Micros),
        median(of, Measurement::p999Micros),
        median(of, Measurement::cpuMicrosPerRequest),
        median(of, Measurement::rssMib),
        (int) median(of, m -> (double) m.threads()),
        of.stream().mapToInt(Measurement::errors).sum(),
        of.stream().mapToInt(Measurement::non200).sum());
  }

  static double median(List<Measurement> of, java.util.function.ToDoubleFunction<Measurement> f) {
    double[] values = of.stream().mapToDouble(f).sorted().toArray();
    int n = values.length;
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  }

  static String format(Measurement m) {
    return String.format(
        Locale.ROOT,
        "%-5s start %5d ms (%5d ms CPU), classes %5d, p50 %7.1f µs, p99 %7.1f µs, p99.9 %7.1f µs,"
            + " CPU %6.1f µs/req, RSS %5.1f MiB, threads %3d, errors %d, non-200 %d",
        m.mode(),
        m.startMillis(),
        m.startCpuMillis(),
        m.loadedClasses(),
        m.p50Micros(),
        m.p99Micros(),
        m.p999Micros(),
        m.cpuMicrosPerRequest(),
        m.rssMib(),
        m.threads(),
        m.errors(),
        m.non200());
  }

  static String row(Measurement m) {
    return String.format(
        Locale.ROOT,
        "| %s | %d | %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %d |",
        m.mode(),
        m.startMillis(),
        m.startCpuMillis(),
        m.loadedClasses(),
        m.p50Micros(),
        m.p99Micros(),
        m.p999Micros(),
        m.cpuMicrosPerRequest(),
        m.rssMib(),
        m.threads());
  }

  static Map<String, String> parse(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --option value, got " + args[i]);
      }
      options.put(args[i].substring(2), args[i + 1]);
    }
    return options;
  }

  static String require(Map<String, String> options, String name) {
    String value = options.get(name);
    if (value == null) {
      throw new IllegalArgumentException("--" + name + " is required");
    }
    return value;
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
