package io.sluice.bench.agent;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How long a rule takes from its publish to its enforcement: sluice-server in this JVM, the test
 * application under the agent in its own JVM, and {@code --publishes} (100) publishes through the
 * config API, alternating a rule that refuses every call to {@code GET /orders/{id}} and an empty
 * document. Each is timed from the moment the publish is acknowledged to the first request that
 * sees the change (429 after a rule, 200 after its removal), probing in a tight loop; the driver
 * prints every figure and their p50, p99 and maximum.
 *
 * <pre>
 * mvn -B -q -pl sluice-agent,sluice-e2e/apps/boot3-app,sluice-bench -am package -DskipTests
 * java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.agent.RuleLatencyDriver \
 *   --app-jar sluice-e2e/apps/boot3-app/target/boot3-app.jar \
 *   --agent-jar sluice-agent/target/sluice-agent.jar --publishes 100
 * </pre>
 */
public final class RuleLatencyDriver {
  static final String APP_NAME = "latency-app";
  static final String RULE = "[{\"resource\":\"GET /orders/{id}\",\"count\":0}]";

  private RuleLatencyDriver() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = AgentOverheadDriver.parse(args);
    Path appJar = Path.of(AgentOverheadDriver.require(options, "app-jar"));
    Path agentJar = Path.of(AgentOverheadDriver.require(options, "agent-jar"));
    int publishes = Integer.parseInt(options.getOrDefault("publishes", "100"));
    Path java =
        Path.of(
            options.getOrDefault("java", ProcessHandle.current().info().command().orElse("java")));
    Path work = Files.createTempDirectory("sluice-rule-latency");
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    try (SluiceServer server =
        SluiceServer.start(
            ServerOptions.builder()
                .httpPort(AgentOverheadDriver.freePort())
                .dataDir(work.resolve("server"))
                .build())) {
      String config = "127.0.0.1:" + server.httpPort();
      awaitServing(http, config);
      int port = AgentOverheadDriver.freePort();
      List<String> command =
          List.of(
              java.toString(),
              "-Xmx256m",
              "-XX:+UseSerialGC",
              "-javaagent:"
                  + agentJar
                  + "=server.addr="
                  + config
                  + ",cache.dir="
                  + work.resolve("cache")
                  + ",log.dir="
                  + work,
              "-jar",
              appJar.toString(),
              "--server.port=" + port,
              "--spring.application.name=" + APP_NAME,
              "--spring.main.banner-mode=off");
      Path output = work.resolve("app.out");
      Process app =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      try {
        String base = "http://127.0.0.1:" + port;
        AgentOverheadDriver.awaitFirstResponse(http, base, app, output, System.nanoTime());
        publish(http, config, "[]");
        awaitStatus(http, base, 200, Duration.ofSeconds(30));
        List<Double> millis = new ArrayList<>();
        for (int i = 0; i < publishes; i++) {
          boolean rule = i % 2 == 0;
          publish(http, config, rule ? RULE : "[]");
          long acknowledged = System.nanoTime();
          awaitStatus(http, base, rule ? 429 : 200, Duration.ofSeconds(30));
          millis.add((System.nanoTime() - acknowledged) / 1e6);
        }
        report(millis);
      } finally {
        app.destroy();
        if (!app.waitFor(15, TimeUnit.SECONDS)) {
          app.destroyForcibly().waitFor();
        }
      }
    }
  }

  static void report(List<Double> millis) {
    List<Double> sorted = new ArrayList<>(millis);
    sorted.sort(null);
    StringBuilder all = new StringBuilder();
    for (double m : millis) {
      all.append(all.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.0f", m));
    }
    System.out.println("publish acknowledged -> enforced, ms, in order: " + all);
    System.out.printf(
        Locale.ROOT,
        "publishes %d: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
        sorted.size(),
        percentile(sorted, 0.50),
        percentile(sorted, 0.99),
        sorted.get(sorted.size() - 1));
  }

  /** Nearest-rank percentile of sorted values. */
  static double percentile(List<Double> sorted, double p) {
    int rank = (int) Math.ceil(p * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }

  private static void awaitStatus(HttpClient http, String base, int status, Duration deadline)
      throws Exception {
    HttpRequest probe =
        HttpRequest.newBuilder(URI.create(base + "/orders/1"))
            .timeout(Duration.ofSeconds(5))
            .build();
    long end = System.nanoTime() + deadline.toNanos();
    while (System.nanoTime() < end) {
      if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == status) {
        return;
      }
    }
    throw new IllegalStateException("no " + status + " within " + deadline);
  }

  private static void awaitServing(HttpClient http, String config) throws Exception {
    for (int i = 0; i < 100; i++) {
      try {
        publish(http, config, "[]");
        return;
      } catch (IOException | IllegalStateException starting) {
        Thread.sleep(100);
      }
    }
    throw new IllegalStateException("the config center did not start");
  }

  private static void publish(HttpClient http, String config, String content) throws Exception {
    String form =
        "dataId="
            + encode(APP_NAME + "-flow-rules")
            + "&group=SENTINEL_GROUP&content="
            + encode(content);
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://" + config + "/nacos/v1/cs/configs"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200 || !response.body().trim().equals("true")) {
      throw new IllegalStateException("publish: " + response.statusCode() + " " + response.body());
    }
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
