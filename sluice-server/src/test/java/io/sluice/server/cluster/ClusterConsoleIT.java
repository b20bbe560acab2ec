package io.sluice.server.cluster;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.config.listener.AbstractListener;
import com.alibaba.nacos.api.naming.NamingService;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.BesideInProcessTests;
import io.sluice.server.testing.ClusterProcesses;
import io.sluice.server.testing.HeadlessChromium;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * A cluster with auth on, as an operator exposing one runs it: three {@code sluice server --auth}
 * processes started together with no {@code SLUICE_ADMIN_PASSWORD}, started once for the class.
 *
 * <p>First, auth: the admin's generated password is printed once, by one node, and it and the
 * tokens it gets work on every node, because users and the token key are replicated state; so does
 * a user created on another node, and the official client logging in against the whole cluster.
 *
 * <p>Then the console, whose answers must cover the whole cluster although each node holds its own
 * clients and agents: official nacos-client subscribers and listeners connected to different nodes,
 * and traffic reports (the agent's format, posted as the agent posts it) sent to different nodes,
 * are all listed by the console's API on every node, with the node each came through; and with a
 * member frozen or stopped, the others answer promptly with what they have and name it.
 */
@BesideInProcessTests
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterConsoleIT {
  private static final String MARKER = "with the generated password: ";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SERVICE = "console-orders";
  private static final String DATA_ID = "console.yaml";
  private static final String GROUP = "CONSOLE";
  private static final String APP = "console-shop";
  private static final String RESOURCE = "GET /orders/{id}";

  /** A member's share is asked with a 2 s timeout: five times that catches a hung fan-out. */
  private static final long PROMPT_MILLIS = 10_000;

  private ClusterProcesses cluster;
  private final OpenApiClient[] http = new OpenApiClient[3];
  private final List<Object> clients = new ArrayList<>();
  private String password;
  private String token;

  /** The second the traffic reports end at, and so the one every node should show summed. */
  private long reportedSecond;

  @BeforeAll
  void startCluster() throws Exception {
    System.setProperty("JM.LOG.PATH", Path.of("target", "nacos-client-logs").toString());
    Path work = Files.createTempDirectory(Path.of("target"), "cluster-console-it-");
    cluster = ClusterProcesses.start(work, 3, 0, List.of("--auth"), Map.of());
    for (int node = 0; node < 3; node++) {
      http[node] = new OpenApiClient(cluster.baseUri(node).replace("/nacos", ""));
    }
  }

  @AfterAll
  void stopCluster() throws Exception {
    for (Object client : clients) {
      if (client instanceof ConfigService config) {
        config.shutDown();
      } else if (client instanceof NamingService naming) {
        naming.shutDown();
      }
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void theBootstrappedAdminAndItsTokensWorkOnEveryNode() throws Exception {
    List<String> printed = new ArrayList<>();
    for (int node = 0; node < 3; node++) {
      for (String line : cluster.process(node).output()) {
        if (line.contains(MARKER)) {
          printed.add(line.substring(line.indexOf(MARKER) + MARKER.length()).split("\\s+")[0]);
        }
      }
    }
    assertThat(printed).as("the generated password, printed by one node once").hasSize(1);
    password = printed.get(0);

    Map<Integer, String> tokens = new HashMap<>();
    for (int node = 0; node < 3; node++) {
      assertThat(
              http[node]
                  .get("/nacos/v1/cs/configs", params("dataId", "a", "group", "g"))
                  .statusCode())
          .as("no token on node %d", node)
          .isEqualTo(401);
      tokens.put(node, login(http[node], "nacos", password));
    }
    token = tokens.get(0);
    // The token key is the cluster's: a token from one node is good on every other.
    for (int node = 0; node < 3; node++) {
      String foreign = tokens.get((node + 1) % 3);
      HttpResponse<String> users =
          http[node].get("/nacos/v1/auth/users", params("accessToken", foreign));
      assertThat(users.statusCode()).as(users.body()).isEqualTo(200);
    }

    HttpResponse<String> created =
        http[1].post(
            "/nacos/v1/auth/users",
            params("username", "dev-user", "password", "dev-pass-1", "accessToken", tokens.get(1)));
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    // Logins read the node's applied state, which trails the write by the replication delay.
    ClusterProcesses.awaitCondition(
        () ->
            http[2]
                    .post(
                        "/nacos/v1/auth/users/login",
                        params("username", "dev-user", "password", "dev-pass-1"))
                    .statusCode()
                == 200,
        30);

    ConfigService client = configClient(cluster.addresses());
    assertThat(client.publishConfig("secured", "CLUSTER", "v1")).isTrue();
    for (int node = 0; node < 3; node++) {
      HttpResponse<String> read =
          http[node].get(
              "/nacos/v1/cs/configs",
              params("dataId", "secured", "group", "CLUSTER", "accessToken", tokens.get(node)));
      assertThat(read.body()).as("read on node %d", node).isEqualTo("v1");
    }

    // A client with an address server finds the cluster before it has logged in.
    assertThat(http[0].get("/nacos/serverlist", Map.of()).body().lines())
        .containsExactlyInAnyOrder(cluster.address(0), cluster.address(1), cluster.address(2));
  }

  @Test
  @Order(2)
  void everyNodesConsoleListsTheSubscribersListenersAndTrafficHeldByEveryNode() throws Exception {
    for (int node = 0; node < 3; node++) {
      namingClient(cluster.address(node)).subscribe(SERVICE, event -> {});
      configClient(cluster.address(node))
          .addListener(
              DATA_ID,
              GROUP,
              new AbstractListener() {
                @Override
                public void receiveConfigInfo(String content) {}
              });
    }
    Set<String> everyNode = Set.of(cluster.address(0), cluster.address(1), cluster.address(2));
    for (int node = 0; node < 3; node++) {
      int asked = node;
      // Subscriptions and listeners arrive with the clients' own calls, a moment after the API's.
      ClusterProcesses.awaitCondition(() -> subscribers(asked).path("count").asInt() == 3, 30);
      JsonNode subscribers = subscribers(asked);
      assertThat(subscribers.path("missing")).as(subscribers.toString()).isEmpty();
      assertThat(values(subscribers.path("subscribers"), "node")).isEqualTo(everyNode);
      JsonNode ownOnly =
          JSON.readTree(
              ok(
                  http[asked].get(
                      "/nacos/v1/ns/service/subscribers",
                      params(
                          "serviceName", SERVICE, "aggregation", "false", "accessToken", token))));
      assertThat(ownOnly.path("count").asInt()).as("node %d holds its own", asked).isEqualTo(1);

      ClusterProcesses.awaitCondition(() -> listeners(asked).path("listeners").size() == 3, 30);
      JsonNode listeners = listeners(asked);
      assertThat(values(listeners.path("listeners"), "node")).isEqualTo(everyNode);
      assertThat(listeners.path("lisentersGroupkeyStatus").size()).isPositive();
      assertThat(listeners.path("missing")).isEmpty();
    }

    // One instance of the application reports to each node, and a fourth moved from node 1 to
    // node 2 (as an agent does when a report fails): its old seconds stay on node 1. Posted once
    // the clients are in, so that every instance is fresh (reported within 25 s) below.
    reportedSecond = System.currentTimeMillis() / 1000 - 1;
    for (int node = 0; node < 3; node++) {
      report(
          node,
          "shop-" + node,
          reportedSecond - 4,
          reportedSecond,
          pow10(node),
          1_000 * (node + 1));
    }
    report(1, "shop-moved", reportedSecond - 9, reportedSecond - 5, 1_000, 4_000);
    Thread.sleep(20); // its report on node 2 is the newer
    report(2, "shop-moved", reportedSecond - 4, reportedSecond, 1_000, 4_000);

    for (int node = 0; node < 3; node++) {
      int asked = node;
      JsonNode apps = traffic(asked, "/apps", params("accessToken", token));
      assertThat(apps.path("missing")).isEmpty();
      Map<String, String> nodeOf = new HashMap<>();
      for (JsonNode app : apps.path("apps")) {
        if (app.path("app").asText().equals(APP)) {
          app.path("instances")
              .forEach(i -> nodeOf.put(i.path("instance").asText(), i.path("node").asText()));
        }
      }
      assertThat(nodeOf)
          .as("instances listed by node %d", asked)
          .containsExactlyInAnyOrderEntriesOf(
              Map.of(
                  "shop-0", cluster.address(0),
                  "shop-1", cluster.address(1),
                  "shop-2", cluster.address(2),
                  "shop-moved", cluster.address(2)));

      JsonNode resources = traffic(asked, "/resources", params("app", APP, "accessToken", token));
      assertThat(resources.path("missing")).isEmpty();
      JsonNode last = resources.path("resources").get(0).path("lastSecond");
      assertThat(resources.path("resources").get(0).path("name").asText()).isEqualTo(RESOURCE);
      assertThat(last.path("startMillis").asLong()).isEqualTo(reportedSecond * 1000);
      assertThat(last.path("pass").asInt())
          .as("1 + 10 + 100 + 1000 from four instances")
          .isEqualTo(1_111);
      // The mean weighted by calls: (1×1 + 10×2 + 100×3 + 1000×4 ms) / 1111.
      assertThat(last.path("avgRtMicros").asInt()).isCloseTo(3_889, within(2));
      assertThat(last.path("p99RtMicros").asInt()).isEqualTo(4_000 * 2);

      JsonNode series =
          traffic(asked, "/series", params("app", APP, "resource", RESOURCE, "accessToken", token));
      Map<Long, Integer> passBySecond = new HashMap<>();
      series
          .path("seconds")
          .forEach(
              p -> passBySecond.put(p.path("startMillis").asLong() / 1000, p.path("pass").asInt()));
      assertThat(passBySecond)
          .containsEntry(reportedSecond, 1_111)
          .containsEntry(reportedSecond - 4, 1_111)
          .as("the moved instance's older seconds, held by node 1 only")
          .containsEntry(reportedSecond - 7, 1_000);
    }
  }

  @Test
  @Order(3)
  void theGovernancePagesPollsAreAnsweredByEveryMemberEachTime() throws Exception {
    // The page's three calls a second, each merged over the three nodes, polled back to back. The
    // time is printed to read, not asserted (three JVMs and the test share two cores).
    List<Long> micros = new ArrayList<>();
    for (int round = 0; round < 30; round++) {
      int node = round % 3;
      long began = System.nanoTime();
      List<JsonNode> answers =
          List.of(
              traffic(node, "/apps", params("accessToken", token)),
              traffic(node, "/resources", params("app", APP, "accessToken", token)),
              traffic(
                  node, "/series", params("app", APP, "resource", RESOURCE, "accessToken", token)));
      micros.add(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - began));
      for (JsonNode answer : answers) {
        assertThat(answer.path("missing")).as("round %d: %s", round, answer).isEmpty();
        assertThat(answer.has("missing")).isTrue();
      }
    }
    micros.sort(null);
    System.out.printf(
        "governance page's three traffic calls merged over 3 nodes: p50 %d us, max %d us over %d"
            + " rounds%n",
        micros.get(micros.size() / 2), micros.get(micros.size() - 1), micros.size());
  }

  @Test
  @Order(4)
  void theConsolePagesShowEveryNodesSubscribersAndInstances() {
    try (HeadlessChromium browser = HeadlessChromium.start()) {
      String base = "http://" + cluster.address(1);
      browser.open(base + "/nacos/");
      browser.element(By.name("password")).sendKeys(password);
      browser.element(By.cssSelector("[data-test='login'] button")).click();
      browser.element(test("config-search"));

      browser.open(base + "/nacos/#/service?name=" + SERVICE);
      List<String> everyNode = List.of(cluster.address(0), cluster.address(1), cluster.address(2));
      browser.until(d -> texts(browser, "subscriber-row", "node").equals(everyNode));
      browser.screenshot("cluster-subscribers");

      // The governance page redraws every second: read its rows inside the wait.
      browser.open(base + "/nacos/#/app?name=" + APP);
      List<String> reportsTo =
          List.of(cluster.address(0), cluster.address(1), cluster.address(2), cluster.address(2));
      browser.until(d -> texts(browser, "instance-row", "node").equals(reportsTo));
      browser.screenshot("cluster-governance");
      assertThat(browser.driver().findElement(By.tagName("body")).getText())
          .as("nothing missing is shown as such")
          .doesNotContain("null")
          .doesNotContain("Incomplete");
    }
  }

  @Test
  @Order(5)
  void withAMemberFrozenOrStoppedEveryOtherNodeAnswersPromptlyAndNamesIt() throws Exception {
    // Frozen (SIGSTOP): its socket accepts but it never answers, as a member cut off mid-way.
    cluster.process(2).pause();
    try {
      long began = System.nanoTime();
      JsonNode subscribers = subscribers(0);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began))
          .isLessThan(PROMPT_MILLIS);
      assertThat(subscribers.path("count").asInt()).isEqualTo(2);
      assertThat(subscribers.path("missing").get(0).path("address").asText())
          .isEqualTo(cluster.address(2));
      assertThat(subscribers.path("missing").get(0).path("reason").asText())
          .contains("did not answer within");
      // Asked again at once, it is skipped for a while rather than waited for once more.
      JsonNode listeners = listeners(0);
      assertThat(listeners.path("missing").get(0).path("reason").asText()).contains("asked again");
    } finally {
      cluster.process(2).resume();
    }

    cluster.stop(2);
    // Fresh reports from the instances of the nodes still up (the earlier ones may have expired).
    long now = System.currentTimeMillis() / 1000 - 1;
    report(0, "shop-0", now - 4, now, 1, 1_000);
    report(1, "shop-1", now - 4, now, 10, 2_000);
    ClusterProcesses.awaitCondition(
        () -> {
          JsonNode apps = traffic(1, "/apps", params("accessToken", token));
          return apps.path("missing").size() == 1
              && apps.path("missing").get(0).path("address").asText().equals(cluster.address(2));
        },
        30);
    long began = System.nanoTime();
    JsonNode apps = traffic(1, "/apps", params("accessToken", token));
    JsonNode resources = traffic(1, "/resources", params("app", APP, "accessToken", token));
    JsonNode subscribers = subscribers(1);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began)).isLessThan(PROMPT_MILLIS);
    Set<String> instances = new TreeSet<>();
    for (JsonNode app : apps.path("apps")) {
      if (app.path("app").asText().equals(APP)) {
        app.path("instances").forEach(i -> instances.add(i.path("instance").asText()));
      }
    }
    assertThat(instances).contains("shop-0", "shop-1").doesNotContain("shop-2");
    assertThat(resources.path("missing").get(0).path("address").asText())
        .isEqualTo(cluster.address(2));
    assertThat(subscribers.path("count").asInt()).isEqualTo(2);
    assertThat(subscribers.path("missing").get(0).path("address").asText())
        .isEqualTo(cluster.address(2));
    JsonNode load =
        JSON.readTree(
            ok(http[1].get("/nacos/v2/core/loader/cluster", params("accessToken", token))));
    for (JsonNode node : load.path("detail")) {
      assertThat(node.path("error").isNull())
          .as("%s", node)
          .isEqualTo(!node.path("address").asText().equals(cluster.address(2)));
    }

    try (HeadlessChromium browser = HeadlessChromium.start()) {
      String base = "http://" + cluster.address(1);
      browser.open(base + "/nacos/");
      browser.element(By.name("password")).sendKeys(password);
      browser.element(By.cssSelector("[data-test='login'] button")).click();
      browser.element(test("config-search"));
      browser.open(base + "/nacos/#/service?name=" + SERVICE);
      browser.elementWithText(test("missing-nodes"), cluster.address(2));
      browser.screenshot("cluster-subscribers-member-down");
    }
  }

  private JsonNode subscribers(int node) throws Exception {
    return JSON.readTree(
        ok(
            http[node].get(
                "/nacos/v1/ns/service/subscribers",
                params("serviceName", SERVICE, "accessToken", token))));
  }

  private JsonNode listeners(int node) throws Exception {
    return JSON.readTree(
        ok(
            http[node].get(
                "/nacos/v1/cs/configs/listener",
                params("dataId", DATA_ID, "group", GROUP, "accessToken", token))));
  }

  private JsonNode traffic(int node, String path, Map<String, String> query) throws Exception {
    return JSON.readTree(ok(http[node].get("/nacos/v1/sluice/traffic" + path, query)));
  }

  /**
   * Posts one instance's seconds {@code from..to} (epoch seconds) of {@link #RESOURCE} to {@code
   * node}, as sluice-agent's {@code TrafficSender} does: a form field {@code report} holding the
   * JSON, the token in the query.
   */
  private void report(int node, String instance, long from, long to, int pass, int rtMicros)
      throws Exception {
    StringBuilder seconds = new StringBuilder();
    for (long t = from; t <= to; t++) {
      if (seconds.length() > 0) {
        seconds.append(',');
      }
      seconds
          .append("{\"t\":")
          .append(t * 1000)
          .append(",\"resources\":[{\"name\":\"")
          .append(RESOURCE)
          .append("\",\"pass\":")
          .append(pass)
          .append(",\"block\":0,\"failed\":0,\"rt\":")
          .append(rtMicros)
          .append(",\"p50\":")
          .append(rtMicros)
          .append(",\"p99\":")
          .append(rtMicros * 2)
          .append(",\"concurrency\":1}]}");
    }
    String report =
        "{\"app\":\""
            + APP
            + "\",\"instance\":\""
            + instance
            + "\",\"sentAt\":"
            + System.currentTimeMillis()
            + ",\"dropped\":0,\"seen\":[{\"name\":\""
            + RESOURCE
            + "\",\"kind\":\"Spring MVC route\"}],\"seconds\":["
            + seconds
            + "]}";
    HttpResponse<String> sent =
        http[node].post("/nacos/v1/sluice/traffic?accessToken=" + token, params("report", report));
    assertThat(sent.statusCode()).as(sent.body()).isEqualTo(200);
  }

  private static int pow10(int n) {
    int v = 1;
    for (int i = 0; i < n; i++) {
      v *= 10;
    }
    return v;
  }

  private static String ok(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return response.body();
  }

  private static Set<String> values(JsonNode array, String field) {
    Set<String> out = new TreeSet<>();
    array.forEach(e -> out.add(e.path(field).asText()));
    return out;
  }

  private static By test(String name) {
    return By.cssSelector("[data-test='" + name + "']");
  }

  /** The {@code cell} of every {@code row}, sorted. */
  private static List<String> texts(HeadlessChromium browser, String row, String cell) {
    List<String> out = new ArrayList<>();
    for (WebElement r : browser.driver().findElements(test(row))) {
      out.add(r.findElement(test(cell)).getText());
    }
    out.sort(null);
    return out;
  }

  private static String login(OpenApiClient http, String user, String password) throws Exception {
    HttpResponse<String> login =
        http.post("/nacos/v1/auth/users/login", params("username", user, "password", password));
    assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
    return login.body().replaceAll(".*\"accessToken\":\"([^\"]+)\".*", "$1");
  }

  private ConfigService configClient(String serverAddr) throws Exception {
    ConfigService client = NacosFactory.createConfigService(properties(serverAddr));
    clients.add(client);
    return client;
  }

  private NamingService namingClient(String serverAddr) throws Exception {
    NamingService client = NacosFactory.createNamingService(properties(serverAddr));
    clients.add(client);
    return client;
  }

  private Properties properties(String serverAddr) {
    Properties properties = new Properties();
    properties.put(PropertyKeyConst.SERVER_ADDR, serverAddr);
    properties.put(PropertyKeyConst.USERNAME, "nacos");
    properties.put(PropertyKeyConst.PASSWORD, password);
    return properties;
  }
}
