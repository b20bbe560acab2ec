package io.sluice.e2e.chain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.e2e.FixedRateLoad;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The demo chain under the agent, end to end through the gateway, and canary lanes on it: written
 * once and run on each Spring generation by the subclasses. The chain is sluice-server (registry
 * and config center), the gateway, a base instance of a, b and c, and a gray b and a gray c (their
 * lane set only by {@code -Dsluice.lane=gray}, which the agent reads); the applications have no
 * lane code. There is no gray a, so every tagged request falls back to base at the gateway's {@code
 * lb://a} route, then stays in its lane over a's OpenFeign call to b and b's RestClient call to c:
 * {@code gateway > a[base] > b[gray] > c[gray]}.
 *
 * <p>One chain serves every method, each starting from the chain as it started ({@link
 * DemoChain#reset}: the documents a test published removed, a stopped instance started again).
 */
@ResourceLock(DemoChain.LOCK)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class ChainScenarios {
  static final String HTTP_TEST = "/a/httpTest";
  static final String ASYNC_TEST = "/a/asyncTest";
  static final String BASE_PATH = "gateway > a[base] > b[base] > c[base]";
  static final String GRAY_PATH = "gateway > a[base] > b[gray] > c[gray]";

  /** A gray request once the gray b is gone: base b, then still the gray c. */
  static final String GRAY_ON_BASE_B = "gateway > a[base] > b[base] > c[gray]";

  static final String LANE = "x-sluice-lane";

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  DemoChain chain;

  abstract SpringGeneration generation();

  @BeforeAll
  void startChain() throws Exception {
    chain = DemoChain.shared(withGrayBAndC(generation()));
  }

  /** The chain these scenarios run on, which other chain tests share: a gray b and a gray c. */
  static DemoChain.Builder withGrayBAndC(SpringGeneration generation) {
    return DemoChain.builder()
        .generation(generation)
        .lane("gray", "b", "c")
        // A load balancer cache far longer than any wait here: an instance that leaves stops
        // getting picks in time only if the agent evicts the cached list when the registry pushes
        // the change.
        .appArgument("--spring.cloud.loadbalancer.cache.ttl=10m")
        // Spring Cloud Alibaba keeps a stopping instance alive 10 s after it deregistered, for its
        // callers to move away. No test sends traffic to an instance while stopping it (they check
        // where the traffic goes once it is gone), so the instances stop at once: 10 s less for
        // every stop and every chain closed.
        .appArgument("--spring.cloud.nacos.discovery.graceful-shutdown-wait-time=0");
  }

  /** Before each, not after: what the last test stopped is not started again for nothing. */
  @BeforeEach
  void resetChain() throws Exception {
    chain.reset();
  }

  @Test
  @Order(1)
  void runsEveryInstanceUnderTheAgent() {
    for (ChainInstance instance : chain.instances()) {
      assertThat(instance.output())
          .as("%s", instance)
          .containsPattern("\\[sluice-agent] \\S+ started in \\d+ ms");
    }
  }

  @Test
  @Order(2)
  void carriesUntaggedRequestsThroughBaseInstancesOnly() throws Exception {
    // The agent put the gray instances into their lane when they registered.
    for (String app : List.of("b", "c")) {
      ChainInstance gray = chain.instance(app, "gray");
      assertThat(chain.registered(app))
          .as(app)
          .anyMatch(r -> r.port() == gray.port() && "gray".equals(r.metadata().get("sluice.lane")));
    }
    // Over OpenFeign (a to b) and RestClient (b to c), and from an @Async method over WebClient.
    assertThat(paths(HTTP_TEST, 60)).containsOnlyKeys(BASE_PATH);
    assertThat(paths(ASYNC_TEST, 20)).containsOnlyKeys(BASE_PATH);
  }

  @Test
  @Order(10)
  void aHeaderTaggedRequestStaysInItsLaneAtEveryHopAndFallsBackToBaseWhereItHasNoInstance()
      throws Exception {
    // Sluice's header, MSE's, and W3C baggage.
    for (String form : List.of(LANE, "x-mse-tag")) {
      assertThat(paths(HTTP_TEST, 40, form, "gray")).as(form).containsOnlyKeys(GRAY_PATH);
    }
    assertThat(paths(HTTP_TEST, 40, "baggage", "k=v,sluice-lane=gray"))
        .as("baggage")
        .containsOnlyKeys(GRAY_PATH);
  }

  @Test
  @Order(11)
  void theLaneCrossesTheAsyncHopAndItsWebClientCall() throws Exception {
    // a hands the call to b to one of Spring's task-executor threads, which uses a WebClient.
    assertThat(paths(ASYNC_TEST, 20, LANE, "gray")).containsOnlyKeys(GRAY_PATH);
  }

  @Test
  @Order(12)
  void aPercentageLaneTakesItsShareAtTheGatewayAndEachRequestStaysInItsLane() throws Exception {
    long published = System.nanoTime();
    chain.publish(
        DemoChain.SLUICE_GROUP,
        "lanes",
        "{\"lanes\":[{\"name\":\"everyone\",\"tag\":\"gray\",\"percentage\":100}]}");
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ZERO)
        .until(() -> body(HTTP_TEST).equals(GRAY_PATH));
    long millis = (System.nanoTime() - published) / 1_000_000;
    System.err.printf("[e2e] %s: lane document in force %d ms after publish%n", label(), millis);
    assertThat(millis).as("lane document in force (1 s target)").isLessThan(10_000);

    chain.publish(
        DemoChain.SLUICE_GROUP,
        "lanes",
        "{\"lanes\":[{\"name\":\"half\",\"tag\":\"gray\",\"percentage\":50}]}");
    await().atMost(Duration.ofSeconds(15)).until(() -> paths(HTTP_TEST, 20).size() == 2);
    Map<String, Integer> paths = paths(HTTP_TEST, 1000);
    System.err.printf("[e2e] %s: 50 %% lane over 1,000 requests: %s%n", label(), paths);
    assertThat(paths).containsOnlyKeys(GRAY_PATH, BASE_PATH);
    // Binomial(1000, 0.5): sd 15.8; 4 sd either way.
    assertThat(paths.get(GRAY_PATH)).isBetween(437, 563);
  }

  @Test
  @Order(13)
  void aStickyKeyKeepsEachUserInOneLane() throws Exception {
    chain.publish(
        DemoChain.SLUICE_GROUP,
        "lanes",
        "{\"lanes\":[{\"name\":\"half\",\"tag\":\"gray\",\"percentage\":50,"
            + "\"stickyOn\":{\"header\":\"x-user-id\"}}]}");
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> paths(HTTP_TEST, 10, "x-user-id", "user-0").size() == 1);
    Map<String, Integer> usersByPath = new HashMap<>();
    for (int user = 0; user < 40; user++) {
      Map<String, Integer> paths = paths(HTTP_TEST, 5, "x-user-id", "user-" + user);
      assertThat(paths).as("user-" + user).hasSize(1);
      usersByPath.merge(paths.keySet().iterator().next(), 1, Integer::sum);
    }
    assertThat(usersByPath).containsOnlyKeys(GRAY_PATH, BASE_PATH);
  }

  @Test
  @Order(14)
  void theGatewayWritesTheLaneAndItsOriginIntoTheRequestItselfWithoutRebuildingIt()
      throws Exception {
    // An MSE-tagged request: the entry adds x-sluice-lane, the route the gateway's origin over the
    // client's; both go into Reactor Netty's own request headers, so the agent logs no fallback.
    assertThat(paths(HTTP_TEST, 10, "x-mse-tag", "gray", "x-sluice-origin", "c"))
        .containsOnlyKeys(GRAY_PATH);
    ChainInstance gateway = chain.instance("gateway", DemoChain.BASE);
    assertThat(gateway.agentLog())
        .as("the gateway's agent log")
        .contains("spring-cloud-gateway-4.1")
        .doesNotContain("cannot be written in place");
  }

  @Test
  @Order(15)
  void aGatewayRouteUnderAFlowRuleAdmitsItsLimitAtThreeTimesTheLoad() throws Exception {
    int limit = 20;
    // The resource of a gateway route is its id, as Sentinel's gateway adapter names it.
    chain.publish(
        DemoChain.SENTINEL_GROUP,
        "gateway-flow-rules",
        "[{\"resource\":\"a\",\"grade\":1,\"count\":" + limit + "}]");
    // Probed with twice the limit sent at once: one request after another, a chain slowed by a
    // busy machine answers fewer than 20 a second and would never be refused.
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> refusedAmongConcurrent(HTTP_TEST, 2 * limit).isPresent());
    HttpResponse<String> refused =
        refusedAmongConcurrent(HTTP_TEST, 2 * limit)
            .orElseThrow(() -> new AssertionError("none of " + 2 * limit + " at once refused"));
    assertThat(refused.body()).contains("\"status\":429");
    Thread.sleep(1100);
    FixedRateLoad.Result load =
        FixedRateLoad.run(http, i -> chain.gateway(HTTP_TEST), 3.0 * limit, 30 * limit);
    System.err.printf("[e2e] %s: gateway route at 3x its limit: %s%n", label(), load);
    long expected = Math.round(load.sendSpanSeconds()) * limit;
    assertThat(load.errors()).isZero();
    assertThat((long) load.count(200))
        .isBetween(Math.round(expected * 0.98), Math.round(expected * 1.02));
    assertThat(load.count(200) + load.count(429)).isEqualTo(30 * limit);
  }

  @Test
  @Order(20)
  void namesEveryLoadBalancedCallByItsServiceSoOneRuleCoversEveryClient() throws Exception {
    chain.publish(
        DemoChain.SLUICE_GROUP,
        "a-fallbacks",
        "{\"fallbacks\":[{\"resource\":\"GET b/b/httpTest\",\"outbound\":\"response\","
            + "\"status\":200,\"body\":\"b-fallback\"}]}");
    chain.publish(
        DemoChain.SENTINEL_GROUP,
        "a-flow-rules",
        "[{\"resource\":\"GET b/b/httpTest\",\"count\":0}]");
    String fallback = "gateway > a[base] > b-fallback";
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> body(HTTP_TEST).equals(fallback));
    // a calls b over OpenFeign (httpTest) and over WebClient from an @Async method (asyncTest).
    for (String path : List.of(HTTP_TEST, ASYNC_TEST)) {
      for (int i = 0; i < 4; i++) { // whichever instance the balancer picks
        assertThat(body(path, LANE, "gray")).as(path).isEqualTo(fallback);
      }
    }
  }

  @Test
  @Order(21)
  void appliesALimitAppRuleToCallsFromOneGovernedApplicationAndNotAnother() throws Exception {
    chain.publish(
        DemoChain.SENTINEL_GROUP,
        "b-flow-rules",
        "[{\"resource\":\"GET /b/httpTest\",\"count\":0,\"limitApp\":\"a\"}]");
    // a -> b is refused (a's Feign client sees 429 and fails, so a answers 500).
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> chain.get(HTTP_TEST).statusCode() == 500);
    // The other governed caller of b, the gateway's route b, is not limited.
    assertThat(chain.get("/b/httpTest").statusCode()).isEqualTo(200);
  }

  @Test
  @Order(22)
  void refusesACallerAnAuthorityRuleBlacklists() throws Exception {
    chain.publish(
        DemoChain.SENTINEL_GROUP,
        "b-authority-rules",
        "[{\"resource\":\"GET /b/httpTest\",\"limitApp\":\"a\",\"strategy\":1}]");
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> chain.get(HTTP_TEST).statusCode() == 500);
    assertThat(chain.get("/b/httpTest").statusCode()).isEqualTo(200);
  }

  @Test
  @Order(23)
  void governsAWebFluxRouteOfTheGateway() throws Exception {
    chain.publish(
        DemoChain.SENTINEL_GROUP,
        "gateway-flow-rules",
        "[{\"resource\":\"GET /health\",\"count\":0}]");
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> chain.get("/health").statusCode() == 429);
    HttpResponse<String> refused = chain.get("/health");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.body()).contains("\"error\":\"flow\"");
    assertThat(body(HTTP_TEST, LANE, "gray"))
        .as("the proxied route unaffected")
        .isEqualTo(GRAY_PATH);
  }

  @Test
  @Order(24)
  void pacesAGatewayRouteOnATimerAndAdmitsEveryQueuedRequest() throws Exception {
    chain.publish(
        DemoChain.SENTINEL_GROUP,
        "gateway-flow-rules",
        "[{\"resource\":\"a\",\"count\":5,\"controlBehavior\":2,\"maxQueueingTimeMs\":5000}]");
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> spanOfConcurrent(HTTP_TEST, 4).toMillis() >= 500);
    Thread.sleep(1000);
    long started = System.nanoTime();
    Duration span = spanOfConcurrent(HTTP_TEST, 10);
    System.err.printf(
        "[e2e] %s: 10 concurrent requests paced at 5/s answered over %d ms (%d ms in all)%n",
        label(), span.toMillis(), (System.nanoTime() - started) / 1_000_000);
    // Ten calls paced 200 ms apart: the last starts at least 1.8 s after the first.
    assertThat(span.toMillis()).isGreaterThanOrEqualTo(1500);
  }

  @Test
  @Order(25)
  void namesTheGatewayAsTheCallerOfTheServicesItProxiesTo() throws Exception {
    chain.publish(
        DemoChain.SENTINEL_GROUP,
        "a-flow-rules",
        "[{\"resource\":\"GET /a/httpTest\",\"count\":0,\"limitApp\":\"gateway\"}]");
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> chain.get(HTTP_TEST).statusCode() == 429);
    // A client cannot pass for another caller through the gateway: the gateway names itself.
    assertThat(chain.get(HTTP_TEST, "x-sluice-origin", "c").statusCode()).isEqualTo(429);
    // Calls that do not come through the gateway are not limited by the rule.
    assertThat(direct("a", HTTP_TEST).statusCode()).isEqualTo(200);
    assertThat(direct("a", HTTP_TEST, "x-sluice-origin", "c").statusCode()).isEqualTo(200);
  }

  @Test
  @Order(100)
  void stoppingTheGrayInstanceSendsItsTrafficToBaseWithoutAFailedRequest() throws Exception {
    assertThat(body(HTTP_TEST, LANE, "gray")).isEqualTo(GRAY_PATH);
    ChainInstance grayB = chain.instance("b", "gray");
    grayB.stop();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> chain.registered("b").stream().noneMatch(r -> r.port() == grayB.port()));
    // The registry pushes the removal to a's nacos-client, and the agent evicts a's cached list at
    // once: gray traffic is on base within seconds, not when the ten-minute cache expires.
    long removed = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> body(HTTP_TEST, LANE, "gray").equals(GRAY_ON_BASE_B));
    System.err.printf(
        "[e2e] %s: gray traffic on base %d ms after the registry dropped the instance%n",
        label(), (System.nanoTime() - removed) / 1_000_000);
    Map<String, Integer> paths = paths(HTTP_TEST, 100, LANE, "gray");
    assertThat(paths).containsOnlyKeys(GRAY_ON_BASE_B);
  }

  String label() {
    return generation().name();
  }

  /** See {@link ChainPaths#count}. */
  Map<String, Integer> paths(String path, int n, String... headers) throws Exception {
    return ChainPaths.count(chain, path, n, headers);
  }

  /** See {@link ChainPaths#bodies}. */
  List<String> bodies(String path, int n, String... headers) throws Exception {
    return ChainPaths.bodies(chain, path, n, headers);
  }

  /** GET {@code path} from the base instance of {@code app} directly, not through the gateway. */
  HttpResponse<String> direct(String app, String path, String... headers) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(chain.uri(chain.instance(app, DemoChain.BASE), path))
            .timeout(Duration.ofSeconds(30));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Sends {@code n} requests through the gateway at once; all must succeed. Returns the time
   * between the first and the last answer.
   */
  Duration spanOfConcurrent(String path, int n) throws Exception {
    List<CompletableFuture<Long>> answers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      answers.add(
          http.sendAsync(
                  HttpRequest.newBuilder(chain.gateway(path))
                      .timeout(Duration.ofSeconds(30))
                      .build(),
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
      long at = answer.get(60, TimeUnit.SECONDS);
      first = Math.min(first, at);
      last = Math.max(last, at);
    }
    return Duration.ofNanos(last - first);
  }

  /** Sends {@code n} requests through the gateway at once; one of them answered 429, if any. */
  Optional<HttpResponse<String>> refusedAmongConcurrent(String path, int n) throws Exception {
    List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      answers.add(
          http.sendAsync(
              HttpRequest.newBuilder(chain.gateway(path)).timeout(Duration.ofSeconds(30)).build(),
              HttpResponse.BodyHandlers.ofString()));
    }
    Optional<HttpResponse<String>> refused = Optional.empty();
    for (CompletableFuture<HttpResponse<String>> answer : answers) {
      HttpResponse<String> response = answer.get(60, TimeUnit.SECONDS);
      if (response.statusCode() == 429 && refused.isEmpty()) {
        refused = Optional.of(response);
      }
    }
    return refused;
  }

  /** See {@link ChainPaths#body}. */
  String body(String path, String... headers) throws Exception {
    return ChainPaths.body(chain, path, headers);
  }
}
