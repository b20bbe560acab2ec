package io.sluice.bench.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.bench.competitors.SideBySide;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Sentinel's published overhead table, reproduced: the order-query service ({@code
 * sluice-bench/apps/order-service}, one route with a 5 ± 2 ms handler) under Sentinel 1.8.8 with
 * its official Spring MVC adapter and under the Sluice agent, same jar, same run, at fixed arrival
 * rates, in four configurations each: baseline (neither), statistics only (no rule), one 3,000 QPS
 * flow rule, one slow-call-ratio breaker. Per configuration and rate: RT p50/p95/p99 of the
 * answered requests, CPU, RSS, and for the flow rule what was admitted per one-second window. Also
 * the periodicity of the tail (p99 per 50 ms slot of the second, to find a once-a-second stall such
 * as Sentinel's metric-log writer) and, with {@code --push-rounds}, the delay from publishing a
 * rule to the config center (a running {@code bin/sluice server}) until the application enforces
 * it: Sentinel's {@code sentinel-datasource-nacos} against the Sluice agent's watcher.
 *
 * <pre>
 * java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.agent.SentinelComparison \
 *   --app-jar sluice-bench/apps/order-service/target/order-service.jar \
 *   --agent-jar sluice-agent/target/sluice-agent.jar --rates 1000,3000,5000 --rounds 2 \
 *   --out docs/perf/sentinel-overhead.jsonl
 * </pre>
 *
 * The application runs on CPU 0 ({@code taskset}), this driver on CPU 1.
 */
public final class SentinelComparison {
  static final String APP = "order-service";
  static final String SENTINEL_RESOURCE = "/orders/{id}";
  static final String SLUICE_RESOURCE = "GET /orders/{id}";

  /**
   * The reference table's flow rule; {@code --flow-qps} scales it to what the machine can drive.
   */
  static final double DEFAULT_FLOW_QPS = 3000;

  /**
   * The table's driver by default ({@link Http1OpenLoop}): offers 5,000 req/s from one core, where
   * the JDK's {@code HttpClient} ({@link #JDK_DRIVER}) falls behind at ~2,000.
   */
  static final String LEAN_DRIVER = "lean-http1";

  static final String JDK_DRIVER = "jdk-httpclient";

  /** The configurations of the table, in their first-round order. */
  static final List<String> MODES =
      List.of(
          "baseline",
          "sentinel-stats",
          "sluice-stats",
          "sentinel-flow",
          "sluice-flow",
          "sentinel-breaker",
          "sluice-breaker");

  private static final ObjectMapper json = new ObjectMapper();

  private SentinelComparison() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = AgentOverheadDriver.parse(args);
    Path appJar = Path.of(AgentOverheadDriver.require(options, "app-jar")).toAbsolutePath();
    Path agentJar = Path.of(AgentOverheadDriver.require(options, "agent-jar")).toAbsolutePath();
    Path out = Path.of(AgentOverheadDriver.require(options, "out"));
    String java =
        options.getOrDefault("java", ProcessHandle.current().info().command().orElse("java"));
    List<Double> rates =
        Arrays.stream(options.getOrDefault("rates", "1000,3000,5000").split(","))
            .map(Double::parseDouble)
            .toList();
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "1"));
    int warmup = Integer.parseInt(options.getOrDefault("warmup", "10"));
    int measure = Integer.parseInt(options.getOrDefault("measure", "15"));
    List<String> modes =
        options.containsKey("modes") ? List.of(options.get("modes").split(",")) : MODES;
    int pushRounds = Integer.parseInt(options.getOrDefault("push-rounds", "0"));
    String launcher = options.getOrDefault("sluice", "bin/sluice");
    double flowQps =
        Double.parseDouble(options.getOrDefault("flow-qps", Double.toString(DEFAULT_FLOW_QPS)));
    int routes = Integer.parseInt(options.getOrDefault("routes", "0"));
    String driver = options.getOrDefault("driver", LEAN_DRIVER);
    if (!driver.equals(LEAN_DRIVER) && !driver.equals(JDK_DRIVER)) {
      throw new IllegalArgumentException(
          "--driver is " + LEAN_DRIVER + " or " + JDK_DRIVER + ", not " + driver);
    }
    if (routes > 0 && driver.equals(JDK_DRIVER)) {
      throw new IllegalArgumentException("--routes needs --driver " + LEAN_DRIVER);
    }
    Path work = Files.createTempDirectory("sentinel-comparison");
    pin(ProcessHandle.current().pid(), "1");
    String run = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    System.err.printf(
        "sentinel comparison %s: modes %s, rates %s, %d rounds, %d s warm-up + %d s per rate,"
            + " driver %s%n",
        run, modes, rates, rounds, warmup, measure, driver);
    // --first-round numbers a later run's rounds after an earlier one's in the same file.
    int firstRound = Integer.parseInt(options.getOrDefault("first-round", "1"));
    for (int round = firstRound; round < firstRound + rounds; round++) {
      List<String> order = new ArrayList<>(modes);
      if (round % 2 == 0) {
        Collections.reverse(order);
      }
      for (String mode : order) {
        try (App app = App.start(mode, java, appJar, agentJar, work, null, flowQps, routes)) {
          for (double rate : rates) {
            measure(run, round, mode, app, rate, warmup, measure, driver, out);
          }
        }
      }
    }
    if (pushRounds > 0) {
      pushDelay(
          run, java, appJar, agentJar, work, Path.of(launcher).toAbsolutePath(), pushRounds, out);
    }
  }

  /** One started application and what it needs to be driven and measured. */
  record App(String mode, Process process, HttpClient http, String base, double flowQps, int routes)
      implements AutoCloseable {
    /**
     * @param routes routes beside {@code /orders/{id}} ({@code bench.routes}: {@code /orders1?id=}
     *     .. {@code /ordersN?id=}), each a resource of its own, over which the driver spreads its
     *     requests
     */
    static App start(
        String mode,
        String java,
        Path appJar,
        Path agentJar,
        Path work,
        String configCenter,
        double flowQps,
        int routes)
        throws Exception {
      int port = AgentOverheadDriver.freePort();
      Path dir = work.resolve(mode + "-" + port);
      Files.createDirectories(dir);
      List<String> command =
          new ArrayList<>(
              List.of("taskset", "-c", "0", java, "-Xms512m", "-Xmx512m", "-XX:+UseSerialGC"));
      String sentinel = "off";
      if (mode.startsWith("sentinel-")) {
        sentinel = mode.substring("sentinel-".length());
        command.add("-Dcsp.sentinel.log.dir=" + dir.resolve("csp"));
        command.add("-Dproject.name=" + APP);
      }
      if (mode.startsWith("sluice-")) {
        Path cache = dir.resolve("agent-cache");
        Path group = cache.resolve("public/SENTINEL_GROUP");
        Files.createDirectories(group);
        if (mode.equals("sluice-flow")) {
          Files.writeString(group.resolve(APP + "-flow-rules.json"), flowRules(flowQps));
        } else if (mode.equals("sluice-breaker")) {
          Files.writeString(group.resolve(APP + "-degrade-rules.json"), breakerRule());
        }
        String server =
            configCenter != null ? configCenter : "127.0.0.1:" + AgentOverheadDriver.freePort();
        command.add(
            "-javaagent:"
                + agentJar
                + "=server.addr="
                + server
                + ",app.name="
                + APP
                + ",cache.dir="
                + cache
                + ",log.dir="
                + dir);
      }
      if (configCenter != null && mode.startsWith("sentinel-")) {
        command.add("-DJM.LOG.PATH=" + dir.resolve("nacos-logs"));
        command.add("-DJM.SNAPSHOT.PATH=" + dir.resolve("nacos-snapshots"));
      }
      command.addAll(
          List.of(
              "-jar",
              appJar.toString(),
              "--server.port=" + port,
              "--bench.sentinel=" + sentinel,
              "--bench.sentinel.flow-qps=" + flowQps,
              "--bench.routes=" + routes,
              "--logging.level.root=warn"));
      if (configCenter != null && mode.startsWith("sentinel-")) {
        command.add("--bench.sentinel.nacos=" + configCenter);
      }
      Path output = dir.resolve("app.out");
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
        AgentOverheadDriver.awaitFirstResponse(http, base, process, output, System.nanoTime());
      } catch (Exception | Error e) {
        process.destroyForcibly();
        throw e;
      }
      System.err.printf("  %s started (pid %d, port %d)%n", mode, process.pid(), port);
      return new App(mode, process, http, base, flowQps, routes);
    }

    long pid() {
      return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }

  /** A Sentinel-format flow rule list for both resource names: each side reads its own. */
  static String flowRules(double qps) {
    return "[{\"resource\":\""
        + SLUICE_RESOURCE
        + "\",\"grade\":1,\"count\":"
        + qps
        + "},{\"resource\":\""
        + SENTINEL_RESOURCE
        + "\",\"grade\":1,\"count\":"
        + qps
        + "}]";
  }

  static String breakerRule() {
    return "[{\"resource\":\""
        + SLUICE_RESOURCE
        + "\",\"grade\":0,\"count\":50,\"slowRatioThreshold\":0.5,\"minRequestAmount\":5,"
        + "\"statIntervalMs\":1000,\"timeWindow\":10}]";
  }

  /** Requests sent at a fixed rate and what became of each. */
  static final class Load {
    final long startNanos;
    final long[] dueOffsetNanos;
    final long[] latencyNanos;
    final int[] status; // 0 = not completed, -1 = transport error
    final AtomicInteger completed = new AtomicInteger();
    long sendNanos;

    Load(int total, long startNanos) {
      this.startNanos = startNanos;
      this.dueOffsetNanos = new long[total];
      this.latencyNanos = new long[total];
      this.status = new int[total];
    }

    static Load run(HttpClient http, String base, double rate, int seconds) throws Exception {
      int total = (int) (rate * seconds);
      long start = System.nanoTime();
      Load load = new Load(total, start);
      double interval = 1e9 / rate;
      CompletableFuture<?>[] calls = new CompletableFuture<?>[total];
      for (int i = 0; i < total; i++) {
        long due = start + (long) (i * interval);
        long wait;
        while ((wait = due - System.nanoTime()) > 0) {
          LockSupport.parkNanos(wait);
        }
        int index = i;
        load.dueOffsetNanos[i] = due - start;
        HttpRequest request =
            HttpRequest.newBuilder(URI.create(base + "/orders/" + (i % 1000)))
                .timeout(Duration.ofSeconds(10))
                .build();
        calls[i] =
            http.sendAsync(request, HttpResponse.BodyHandlers.discarding())
                .whenComplete(
                    (response, error) -> {
                      load.latencyNanos[index] = System.nanoTime() - due;
                      load.status[index] = error != null ? -1 : response.statusCode();
                      load.completed.incrementAndGet();
                    });
      }
      load.sendNanos = System.nanoTime() - start;
      CompletableFuture.allOf(calls).exceptionally(e -> null).get(60, TimeUnit.SECONDS);
      return load;
    }

    int count(int wanted) {
      int n = 0;
      for (int s : status) {
        if (s == wanted) {
          n++;
        }
      }
      return n;
    }

    /** Latencies in µs of the requests answered 200, sorted. */
    long[] okMicros() {
      return okMicros(0, Long.MAX_VALUE);
    }

    long[] okMicros(long fromOffset, long toOffset) {
      long[] out = new long[status.length];
      int n = 0;
      for (int i = 0; i < status.length; i++) {
        if (status[i] == 200 && dueOffsetNanos[i] >= fromOffset && dueOffsetNanos[i] < toOffset) {
          out[n++] = latencyNanos[i] / 1000;
        }
      }
      long[] done = Arrays.copyOf(out, n);
      Arrays.sort(done);
      return done;
    }
  }

  static double percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int index = (int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
    return sorted[Math.max(0, index)];
  }

  static void measure(
      String run,
      int round,
      String mode,
      App app,
      double rate,
      int warmup,
      int measure,
      String driver,
      Path out)
      throws Exception {
    drive(app, driver, rate, warmup);
    double[] loadBefore = SideBySide.loadAverage();
    String startedAt = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    ProcessSample before = ProcessSample.of(app.pid());
    long wallBefore = System.nanoTime();
    Load load = drive(app, driver, rate, measure);
    long wall = System.nanoTime() - wallBefore;
    ProcessSample after = ProcessSample.of(app.pid());
    double cpuMicros = after.cpuMicrosSince(before);
    long[] ok = load.okMicros();
    ObjectNode r = json.createObjectNode();
    r.put("run", run);
    r.put("round", round);
    r.put("mode", mode);
    r.put("rate", rate);
    r.put("flowQps", app.flowQps());
    r.put("startedAt", startedAt);
    r.put("loadAvg1Before", loadBefore[0]);
    r.put("loadAvg1After", SideBySide.loadAverage()[0]);
    r.put("seconds", measure);
    r.put("driver", driver);
    r.put("routes", app.routes());
    r.put("sent", load.status.length);
    r.put("sentPerSec", round(load.status.length / (load.sendNanos / 1e9), 1));
    r.put("drainSeconds", round((wall - load.sendNanos) / 1e9, 2));
    r.put("ok", ok.length);
    r.put("blocked", load.count(429));
    r.put("transportErrors", load.count(-1));
    r.put("otherStatus", load.status.length - ok.length - load.count(429) - load.count(-1));
    r.put("p50Ms", round(percentile(ok, 0.50) / 1000, 3));
    r.put("p95Ms", round(percentile(ok, 0.95) / 1000, 3));
    r.put("p99Ms", round(percentile(ok, 0.99) / 1000, 3));
    r.put("p999Ms", round(percentile(ok, 0.999) / 1000, 3));
    r.put("cpuPercent", round(100 * cpuMicros / (wall / 1e3), 1));
    r.put("cpuMicrosPerRequest", round(cpuMicros / load.status.length, 1));
    r.put("rssMib", round(after.rssKib() / 1024.0, 1));
    r.put("threads", after.threads());
    // Admitted per one-second window (by due time), for the flow rule's accuracy.
    int windows = measure;
    ArrayNode admitted = r.putArray("admittedPerSecond");
    for (int w = 0; w < windows; w++) {
      int n = 0;
      for (int i = 0; i < load.status.length; i++) {
        long offset = load.dueOffsetNanos[i];
        if (load.status[i] == 200
            && offset >= w * 1_000_000_000L
            && offset < (w + 1) * 1_000_000_000L) {
          n++;
        }
      }
      admitted.add(n);
    }
    // p99 per 50 ms slot of the second (phase-folded): a once-a-second stall makes one slot stand
    // out.
    ArrayNode slots = r.putArray("p99BySlotMs");
    List<List<Long>> bySlot = new ArrayList<>();
    for (int s = 0; s < 20; s++) {
      bySlot.add(new ArrayList<>());
    }
    for (int i = 0; i < load.status.length; i++) {
      if (load.status[i] == 200) {
        int slot = (int) ((load.dueOffsetNanos[i] % 1_000_000_000L) / 50_000_000L);
        bySlot.get(slot).add(load.latencyNanos[i] / 1000);
      }
    }
    for (List<Long> slot : bySlot) {
      long[] sorted = slot.stream().mapToLong(Long::longValue).sorted().toArray();
      slots.add(round(percentile(sorted, 0.99) / 1000, 3));
    }
    // Latency over time: p99 and max per 100 ms of due time.
    ArrayNode timeline = r.putArray("timeline");
    for (long t = 0; t < measure * 1_000_000_000L; t += 100_000_000L) {
      long[] inBucket = load.okMicros(t, t + 100_000_000L);
      ArrayNode point = timeline.addArray();
      point.add(round(t / 1e9, 1));
      point.add(round(percentile(inBucket, 0.99) / 1000, 3));
      point.add(inBucket.length == 0 ? 0 : round(inBucket[inBucket.length - 1] / 1000.0, 3));
    }
    append(out, r);
    System.err.printf(
        Locale.ROOT,
        "  round %d %-16s %5.0f/s: sent %.0f/s, ok %d, 429 %d, p50 %.2f p95 %.2f p99 %.2f ms, CPU %.1f %%"
            + " (%.1f µs/req), RSS %.0f MiB%n",
        round,
        mode,
        rate,
        r.get("sentPerSec").asDouble(),
        ok.length,
        load.count(429),
        r.get("p50Ms").asDouble(),
        r.get("p95Ms").asDouble(),
        r.get("p99Ms").asDouble(),
        r.get("cpuPercent").asDouble(),
        r.get("cpuMicrosPerRequest").asDouble(),
        r.get("rssMib").asDouble());
  }

  /** Offers {@code rate} req/s for {@code seconds} with the chosen driver. */
  static Load drive(App app, String driver, double rate, int seconds) throws Exception {
    if (driver.equals(JDK_DRIVER)) {
      return Load.run(app.http(), app.base(), rate, seconds);
    }
    URI base = URI.create(app.base());
    int routes = app.routes() + 1;
    return Http1OpenLoop.run(
        new InetSocketAddress(base.getHost(), base.getPort()),
        i -> {
          int route = i % routes;
          return route == 0 ? "/orders/" + (i % 1000) : "/orders" + route + "?id=" + (i % 1000);
        },
        rate,
        seconds,
        Http1OpenLoop.DEFAULT_CONNECTIONS,
        TimeUnit.SECONDS.toNanos(60));
  }

  /**
   * Rule-push delay: the application runs under load (1,000 req/s) with its rules watched from a
   * config center (sluice-server, started here on CPU 1); a strict flow rule (10 QPS) is published,
   * and the delay is from sending the publish to the due time of the first request refused; then a
   * lax rule restores the flow and the next round waits 3 s.
   */
  static void pushDelay(
      String run,
      String java,
      Path appJar,
      Path agentJar,
      Path work,
      Path launcher,
      int rounds,
      Path out)
      throws Exception {
    int port = AgentOverheadDriver.freePort();
    Path data = work.resolve("server-data");
    Process server =
        new ProcessBuilder(
                "taskset",
                "-c",
                "1",
                launcher.toString(),
                "server",
                "--port",
                Integer.toString(port),
                "--data-dir",
                data.toString())
            .redirectErrorStream(true)
            .redirectOutput(work.resolve("server.out").toFile())
            .start();
    String center = "127.0.0.1:" + port;
    HttpClient admin = HttpClient.newHttpClient();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (!publish(admin, center, flowRules(1_000_000))) {
        if (System.nanoTime() > deadline || !server.isAlive()) {
          throw new IllegalStateException(
              "sluice-server did not start; see " + work.resolve("server.out"));
        }
        Thread.sleep(250);
      }
      for (String mode : List.of("sentinel-nacos", "sluice-watcher")) {
        String appMode = mode.equals("sentinel-nacos") ? "sentinel-nacos" : "sluice-stats";
        try (App app =
            App.start(appMode, java, appJar, agentJar, work, center, DEFAULT_FLOW_QPS, 0)) {
          Load.run(app.http(), app.base(), 1000, 5);
          for (int i = 0; i < rounds; i++) {
            publish(admin, center, flowRules(1_000_000));
            Thread.sleep(3000);
            double[] delay = new double[1];
            Thread publisher =
                new Thread(
                    () -> {
                      try {
                        Thread.sleep(1000);
                        delay[0] = System.nanoTime();
                        publish(admin, center, flowRules(10));
                      } catch (Exception e) {
                        delay[0] = Double.NaN;
                      }
                    });
            publisher.start();
            Load load = Load.run(app.http(), app.base(), 1000, 4);
            publisher.join();
            long publishOffset = (long) delay[0] - load.startNanos;
            long firstRefused = Long.MAX_VALUE;
            for (int k = 0; k < load.status.length; k++) {
              if (load.status[k] == 429 && load.dueOffsetNanos[k] >= publishOffset) {
                firstRefused = Math.min(firstRefused, load.dueOffsetNanos[k]);
              }
            }
            ObjectNode r = json.createObjectNode();
            r.put("run", run);
            r.put("kind", "push-delay");
            r.put("mode", mode);
            r.put("round", i + 1);
            r.put("startedAt", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
            r.put("loadAvg1Before", SideBySide.loadAverage()[0]);
            r.put(
                "delayMs",
                firstRefused == Long.MAX_VALUE
                    ? null
                    : round((firstRefused - publishOffset) / 1e6, 1));
            append(out, r);
            System.err.printf("  push delay %s round %d: %s ms%n", mode, i + 1, r.get("delayMs"));
          }
        }
      }
      publish(admin, center, flowRules(1_000_000));
    } finally {
      server.destroy();
      if (!server.waitFor(20, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
    }
  }

  static boolean publish(HttpClient http, String center, String content) {
    String form =
        "dataId="
            + APP
            + "-flow-rules&group=SENTINEL_GROUP&type=json&content="
            + URLEncoder.encode(content, StandardCharsets.UTF_8);
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create("http://" + center + "/nacos/v1/cs/configs"))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .POST(HttpRequest.BodyPublishers.ofString(form))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  static void append(Path out, ObjectNode record) throws IOException {
    Files.writeString(
        out,
        json.writeValueAsString(record) + "\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }

  static double round(double value, int decimals) {
    if (!Double.isFinite(value)) {
      return value;
    }
    double scale = Math.pow(10, decimals);
    return Math.round(value * scale) / scale;
  }

  static void pin(long pid, String cpus) throws Exception {
    new ProcessBuilder("taskset", "-a", "-cp", cpus, Long.toString(pid))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start()
        .waitFor();
  }
}
