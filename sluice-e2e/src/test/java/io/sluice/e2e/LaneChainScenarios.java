package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import java.io.IOException;
import java.net.ServerSocket;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * End-to-end canary lanes on a real chain, written once and run per Spring Cloud generation by the
 * subclasses: sluice-server as registry and config center; a Spring Cloud Gateway in front of
 * services lanes-a → lanes-b → lanes-c (Spring MVC, Spring Cloud Alibaba discovery, every
 * load-balanced client), with a base instance of each and a gray lanes-b (its lane set only by the
 * agent's {@code -Dsluice.lane=gray}); every process runs the built agent, none has lane code. Each
 * service answers the path the request took, {@code lanes-a[base] > lanes-b[gray] > lanes-c[base]}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class LaneChainScenarios {
  static final Path AGENT_JAR = GovernedAppScenarios.AGENT_JAR;
  static final Path WORK_DIR = GovernedAppScenarios.WORK_DIR;
  static final String GRAY_PATH = "lanes-a[base] > lanes-b[gray] > lanes-c[base]";
  static final String BASE_PATH = "lanes-a[base] > lanes-b[base] > lanes-c[base]";
  static final String CHAIN = "/a/hop?next=" + encode("lanes-b:feign,lanes-c");

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private SluiceServer server;
  private int serverPort;
  private final List<AppProcess> apps = new ArrayList<>();
  AppProcess gateway;
  AppProcess a;
  AppProcess grayB;

  abstract Path serviceJar();

  abstract Path gatewayJar();

  /** Unique per subclass: a label for its work directory. */
  abstract String label();

  @BeforeAll
  void startTheChain() throws Exception {
    Path dir = WORK_DIR.resolve(label());
    GovernedAppScenarios.deleteRecursively(dir);
    Files.createDirectories(dir);
    serverPort = portWithGrpcFree();
    server =
        SluiceServer.start(
            ServerOptions.builder().httpPort(serverPort).dataDir(dir.resolve("server")).build());
    ExecutorService starter = Executors.newFixedThreadPool(5);
    try {
      CompletableFuture<AppProcess> gw =
          start(starter, gatewayJar(), "lanes-gateway", null, "/health");
      CompletableFuture<AppProcess> first =
          start(starter, serviceJar(), "lanes-a", null, "/health");
      CompletableFuture<AppProcess> b = start(starter, serviceJar(), "lanes-b", null, "/health");
      CompletableFuture<AppProcess> gray =
          start(starter, serviceJar(), "lanes-b", "gray", "/health");
      CompletableFuture<AppProcess> c = start(starter, serviceJar(), "lanes-c", null, "/health");
      for (CompletableFuture<AppProcess> each : List.of(gw, first, b, gray, c)) {
        apps.add(each.join());
      }
      gateway = gw.join();
      a = first.join();
      grayB = gray.join();
    } finally {
      starter.shutdown();
    }
    // Every instance registered and the gateway routes through to the end of the chain.
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> get(CHAIN, "x-sluice-lane", "gray").equals(GRAY_PATH));
  }

  private CompletableFuture<AppProcess> start(
      ExecutorService starter, Path jar, String name, String lane, String readyPath) {
    String label = name + (lane == null ? "" : "-" + lane);
    Path dir = WORK_DIR.resolve(label()).resolve(label);
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return AppProcess.start(
                Path.of(System.getProperty("java.home")),
                jar,
                AGENT_JAR,
                "server.addr=127.0.0.1:"
                    + serverPort
                    + ",log.dir="
                    + dir.toAbsolutePath()
                    + ",cache.dir="
                    + dir.resolve("cache").toAbsolutePath(),
                name,
                dir,
                lane == null ? List.of() : List.of("-Dsluice.lane=" + lane),
                List.of(
                    "--spring.cloud.nacos.discovery.server-addr=127.0.0.1:" + serverPort,
                    // A load balancer cache far longer than any wait here: an instance that
                    // leaves stops getting picks in time only if the agent evicts the cached list
                    // when the registry pushes the change.
                    "--spring.cloud.loadbalancer.cache.ttl=10m"),
                readyPath);
          } catch (Exception e) {
            throw new IllegalStateException("could not start " + label, e);
          }
        },
        starter);
  }

  @AfterAll
  void stopTheChain() throws Exception {
    for (AppProcess app : apps) {
      app.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void removeTheDocuments() throws Exception {
    if (server != null) {
      publish("SLUICE", "lanes", "{\"lanes\":[]}");
      publish("SENTINEL_GROUP", "lanes-gateway-flow-rules", "[]");
      publish("SENTINEL_GROUP", "lanes-a-flow-rules", "[]");
      publish("SLUICE", "lanes-a-fallbacks", "{\"fallbacks\":[]}");
      publish("SENTINEL_GROUP", "lanes-b-flow-rules", "[]");
      publish("SENTINEL_GROUP", "lanes-b-authority-rules", "[]");
      // The next test starts once the gateway's route admits again (a rule leaves within 1 s).
      await()
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> status("/a/hop") == 200);
    }
  }

  @Test
  @Order(1)
  void aHeaderTaggedRequestStaysInItsLaneAndFallsBackToBaseWhereTheLaneHasNoInstance()
      throws Exception {
    for (String form : List.of("x-sluice-lane", "x-mse-tag")) {
      Map<String, Integer> paths = paths(CHAIN, 40, form, "gray");
      assertThat(paths).as(form).containsOnlyKeys(GRAY_PATH);
    }
    assertThat(paths(CHAIN, 40, "baggage", "k=v,sluice-lane=gray")).containsOnlyKeys(GRAY_PATH);
    // Untagged requests never touch a gray instance.
    assertThat(paths(CHAIN, 60)).containsOnlyKeys(BASE_PATH);
  }

  @Test
  @Order(2)
  void theLaneCrossesEveryLoadBalancedClientAnAsyncHopAndAWebClientCall() throws Exception {
    for (String client : List.of("rest-template", "rest-client", "webclient", "feign", "async")) {
      // a calls c with the client, c calls b: b is gray only if c received the lane.
      String viaC = "/a/hop?next=" + encode("lanes-c:" + client + ",lanes-b");
      assertThat(get(viaC, "x-sluice-lane", "gray"))
          .as(client)
          .isEqualTo("lanes-a[base] > lanes-c[base] > lanes-b[gray]");
      assertThat(get("/a/hop?next=" + encode("lanes-b:" + client), "x-sluice-lane", "gray"))
          .as(client + " routed")
          .isEqualTo("lanes-a[base] > lanes-b[gray]");
      assertThat(paths("/a/hop?next=" + encode("lanes-b:" + client), 10))
          .as(client + " untagged")
          .containsOnlyKeys("lanes-a[base] > lanes-b[base]");
    }
  }

  @Test
  @Order(3)
  void aPercentageLaneTakesItsShareAtTheGatewayAndEachRequestStaysInItsLane() throws Exception {
    long published = System.nanoTime();
    publish(
        "SLUICE",
        "lanes",
        "{\"lanes\":[{\"name\":\"everyone\",\"tag\":\"gray\",\"percentage\":100}]}");
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ZERO)
        .until(() -> get(CHAIN).equals(GRAY_PATH));
    long millis = (System.nanoTime() - published) / 1_000_000;
    System.err.printf("[e2e] %s: lane document in force %d ms after publish%n", label(), millis);
    assertThat(millis).as("lane document in force (1 s target)").isLessThan(10_000);

    publish(
        "SLUICE", "lanes", "{\"lanes\":[{\"name\":\"half\",\"tag\":\"gray\",\"percentage\":50}]}");
    await().atMost(Duration.ofSeconds(15)).until(() -> paths(CHAIN, 20).size() == 2);
    Map<String, Integer> paths = paths(CHAIN, 1000);
    System.err.printf("[e2e] %s: 50 %% lane over 1,000 requests: %s%n", label(), paths);
    assertThat(paths).containsOnlyKeys(GRAY_PATH, BASE_PATH);
    // Binomial(1000, 0.5): sd 15.8; 4 sd either way.
    assertThat(paths.get(GRAY_PATH)).isBetween(437, 563);
  }

  @Test
  @Order(4)
  void aStickyKeyKeepsEachUserInOneLane() throws Exception {
    publish(
        "SLUICE",
        "lanes",
        "{\"lanes\":[{\"name\":\"half\",\"tag\":\"gray\",\"percentage\":50,"
            + "\"stickyOn\":{\"header\":\"x-user-id\"}}]}");
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> paths(CHAIN, 10, "x-user-id", "user-0").size() == 1);
    Map<String, Integer> usersByPath = new HashMap<>();
    for (int user = 0; user < 40; user++) {
      Map<String, Integer> paths = paths(CHAIN, 5, "x-user-id", "user-" + user);
      assertThat(paths).as("user-" + user).hasSize(1);
      usersByPath.merge(paths.keySet().iterator().next(), 1, Integer::sum);
    }
    assertThat(usersByPath).containsOnlyKeys(GRAY_PATH, BASE_PATH);
  }

  @Test
  @Order(5)
  void aGatewayRouteUnderAFlowRuleAdmitsItsLimitAtThreeTimesTheLoad() throws Exception {
    int limit = 20;
    publish(
        "SENTINEL_GROUP",
        "lanes-gateway-flow-rules",
        "[{\"resource\":\"a-route\",\"grade\":1,\"count\":" + limit + "}]");
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> status("/a/hop") == 429);
    HttpResponse<String> refused = response("/a/hop");
    for (int i = 0; i < 100 && refused.statusCode() != 429; i++) {
      refused = response("/a/hop");
    }
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.body()).contains("\"status\":429");
    Thread.sleep(1100);
    FixedRateLoad.Result load =
        FixedRateLoad.run(http, i -> gateway.uri("/a/hop"), 3.0 * limit, 30 * limit);
    System.err.printf("[e2e] %s: gateway route at 3x its limit: %s%n", label(), load);
    long expected = Math.round(load.sendSpanSeconds()) * limit;
    assertThat(load.errors()).isZero();
    assertThat((long) load.count(200))
        .isBetween(Math.round(expected * 0.98), Math.round(expected * 1.02));
    assertThat(load.count(200) + load.count(429)).isEqualTo(30 * limit);
  }

  @Test
  @Order(6)
  void namesEveryLoadBalancedCallByItsServiceSoOneRuleCoversEveryClient() throws Exception {
    publish(
        "SLUICE",
        "lanes-a-fallbacks",
        "{\"fallbacks\":[{\"resource\":\"GET lanes-b/hop\",\"outbound\":\"response\","
            + "\"status\":200,\"body\":\"b-fallback\"}]}");
    publish(
        "SENTINEL_GROUP", "lanes-a-flow-rules", "[{\"resource\":\"GET lanes-b/hop\",\"count\":0}]");
    String viaFeign = "/a/hop?next=" + encode("lanes-b:feign");
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> get(viaFeign).equals("lanes-a[base] > b-fallback"));
    for (String client : List.of("rest-template", "rest-client", "webclient", "feign", "async")) {
      for (int i = 0; i < 4; i++) { // whichever instance the balancer picks
        assertThat(get("/a/hop?next=" + encode("lanes-b:" + client), "x-sluice-lane", "gray"))
            .as(client)
            .isEqualTo("lanes-a[base] > b-fallback");
      }
    }
    // Another service is not covered by the rule.
    assertThat(get("/a/hop?next=" + encode("lanes-c:feign")))
        .isEqualTo("lanes-a[base] > lanes-c[base]");
  }

  @Test
  @Order(7)
  void appliesALimitAppRuleToCallsFromOneGovernedApplicationAndNotAnother() throws Exception {
    publish(
        "SENTINEL_GROUP",
        "lanes-b-flow-rules",
        "[{\"resource\":\"GET /hop\",\"count\":0,\"limitApp\":\"lanes-a\"}]");
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> status("/a/hop?next=lanes-b") == 500);
    // lanes-a -> lanes-b is refused (a's client sees 429 and fails); lanes-c -> lanes-b is not.
    assertThat(status("/a/hop?next=lanes-b")).isEqualTo(500);
    assertThat(get("/a/hop?next=" + encode("lanes-c,lanes-b")))
        .isEqualTo("lanes-a[base] > lanes-c[base] > lanes-b[base]");
  }

  @Test
  @Order(8)
  void refusesACallerAnAuthorityRuleBlacklists() throws Exception {
    publish(
        "SENTINEL_GROUP",
        "lanes-b-authority-rules",
        "[{\"resource\":\"GET /hop\",\"limitApp\":\"lanes-a\",\"strategy\":1}]");
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> status("/a/hop?next=lanes-b") == 500);
    assertThat(get("/a/hop?next=" + encode("lanes-c,lanes-b")))
        .isEqualTo("lanes-a[base] > lanes-c[base] > lanes-b[base]");
  }

  @Test
  @Order(9)
  void governsAWebFluxRouteOfTheGateway() throws Exception {
    publish(
        "SENTINEL_GROUP",
        "lanes-gateway-flow-rules",
        "[{\"resource\":\"GET /health\",\"count\":0}]");
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> status("/health") == 429);
    HttpResponse<String> refused = response("/health");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.body()).contains("\"error\":\"flow\"");
    assertThat(get(CHAIN, "x-sluice-lane", "gray"))
        .as("other routes unaffected")
        .isEqualTo(GRAY_PATH);
  }

  @Test
  @Order(10)
  void pacesAGatewayRouteOnATimerAndAdmitsEveryQueuedRequest() throws Exception {
    publish(
        "SENTINEL_GROUP",
        "lanes-gateway-flow-rules",
        "[{\"resource\":\"a-route\",\"count\":5,\"controlBehavior\":2,"
            + "\"maxQueueingTimeMs\":5000}]");
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> spanOfConcurrent("/a/hop", 4).toMillis() >= 500);
    Thread.sleep(1000);
    long started = System.nanoTime();
    Duration span = spanOfConcurrent("/a/hop", 10);
    System.err.printf(
        "[e2e] %s: 10 concurrent requests paced at 5/s answered over %d ms (%d ms in all)%n",
        label(), span.toMillis(), (System.nanoTime() - started) / 1_000_000);
    // Ten calls paced 200 ms apart: the last starts at least 1.8 s after the first.
    assertThat(span.toMillis()).isGreaterThanOrEqualTo(1500);
  }

  @Test
  @Order(11)
  void namesTheGatewayAsTheCallerOfTheServicesItProxiesTo() throws Exception {
    publish(
        "SENTINEL_GROUP",
        "lanes-a-flow-rules",
        "[{\"resource\":\"GET /hop\",\"count\":0,\"limitApp\":\"lanes-gateway\"}]");
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> status("/a/hop") == 429);
    // A client cannot pass for another caller through the gateway: the gateway names itself.
    assertThat(response("/a/hop", "x-sluice-origin", "lanes-c").statusCode()).isEqualTo(429);
    // Calls that do not come through the gateway are not limited by the rule.
    assertThat(a.get("/hop").statusCode()).isEqualTo(200);
    assertThat(a.get("/hop", "x-sluice-origin", "lanes-c").statusCode()).isEqualTo(200);
  }

  /**
   * Sends {@code n} requests at once; all must succeed. Returns the time between the first and the
   * last answer.
   */
  Duration spanOfConcurrent(String path, int n) throws Exception {
    List<CompletableFuture<Long>> answers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      answers.add(
          http.sendAsync(
                  HttpRequest.newBuilder(gateway.uri(path)).timeout(Duration.ofSeconds(30)).build(),
                  HttpResponse.BodyHandlers.ofString())
              .thenApply(
                  response -> {
                    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                    return System.nanoTime();
                  }));
    }
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (CompletableFuture<Long> answer : answers) {
      long at = answer.get(60, java.util.concurrent.TimeUnit.SECONDS);
      first = Math.min(first, at);
      last = Math.max(last, at);
    }
    return Duration.ofNanos(last - first);
  }

  @Test
  @Order(100)
  void stoppingTheGrayInstanceSendsItsTrafficToBaseWithoutAFailedRequest() throws Exception {
    assertThat(get(CHAIN, "x-sluice-lane", "gray")).isEqualTo(GRAY_PATH);
    grayB.close();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> !registryLists("lanes-b", grayB.port()));
    // The registry pushes the removal to a's nacos-client, and the agent evicts a's cached list at
    // once: gray traffic is on base within seconds, not when the ten-minute cache expires.
    long removed = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> get(CHAIN, "x-sluice-lane", "gray").equals(BASE_PATH));
    System.err.printf(
        "[e2e] %s: gray traffic on base %d ms after the registry dropped the instance%n",
        label(), (System.nanoTime() - removed) / 1_000_000);
    Map<String, Integer> paths = paths(CHAIN, 100, "x-sluice-lane", "gray");
    assertThat(paths).containsOnlyKeys(BASE_PATH);
  }

  /**
   * Sends {@code n} requests through the gateway; counts the answers (paths), failing on errors.
   */
  Map<String, Integer> paths(String path, int n, String... headers) throws Exception {
    Map<String, Integer> byPath = new HashMap<>();
    for (int i = 0; i < n; i++) {
      HttpResponse<String> response = response(path, headers);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      byPath.merge(response.body(), 1, Integer::sum);
    }
    return byPath;
  }

  String get(String path, String... headers) throws Exception {
    HttpResponse<String> response = response(path, headers);
    return response.statusCode() == 200 ? response.body() : response.statusCode() + "";
  }

  int status(String path) throws Exception {
    return response(path).statusCode();
  }

  HttpResponse<String> response(String path, String... headers) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(gateway.uri(path)).timeout(Duration.ofSeconds(30));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  boolean registryLists(String service, int port) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(
                        "http://127.0.0.1:"
                            + serverPort
                            + "/nacos/v1/ns/instance/list?serviceName="
                            + service))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return response.body().contains("\"port\":" + port);
  }

  void publish(String group, String dataId, String content) throws Exception {
    String form =
        "dataId=" + encode(dataId) + "&group=" + encode(group) + "&content=" + encode(content);
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + serverPort + "/nacos/v1/cs/configs"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.body().trim()).as("publish " + dataId).isEqualTo("true");
  }

  static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /** A free port whose gRPC twin (port + 1000, where Nacos clients look) is free too. */
  static int portWithGrpcFree() throws IOException {
    for (int attempt = 0; attempt < 50; attempt++) {
      int port = AppProcess.freePort();
      if (port + 1000 > 65535) {
        continue;
      }
      try (ServerSocket grpc = new ServerSocket(port + 1000)) {
        return port;
      } catch (IOException taken) {
        // try another
      }
    }
    throw new IOException("no free port pair");
  }
}
