package io.sluice.server.naming.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.naming.NamingMaintainService;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.EventListener;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import com.alibaba.nacos.api.naming.pojo.Service;
import com.alibaba.nacos.api.selector.NoneSelector;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.naming.Instance;
import io.sluice.server.naming.ServiceKey;
import io.sluice.server.naming.ServiceView;
import io.sluice.server.testing.FreePorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The naming HTTP API (v1 and v2) against a server started in the test, with the JDK's HTTP client
 * and, where it uses HTTP itself or watches over gRPC, the official nacos-client.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NamingHttpApiIT {
  @TempDir static Path dataDir;

  private final ObjectMapper json = new ObjectMapper();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final List<AutoCloseable> closeAfter = new ArrayList<>();
  private SluiceServer server;

  @BeforeAll
  void startServer() {
    System.setProperty("JM.LOG.PATH", Path.of("target", "nacos-client-logs").toString());
    server =
        FreePorts.startServer(
            ServerOptions.builder()
                .dataDir(dataDir)
                .healthCheckInterval(Duration.ofMillis(100))
                .healthCheckTimeout(Duration.ofMillis(500)));
    assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
  }

  /** The instance of a service at an endpoint ({@code ip:port#cluster}), as queries see it. */
  private Instance instanceAt(ServiceKey service, String endpoint) {
    ServiceView view = server.naming().view(service);
    return view == null
        ? null
        : view.instances().stream()
            .filter(i -> i.endpointKey().equals(endpoint))
            .findFirst()
            .orElse(null);
  }

  @AfterAll
  void stop() throws Exception {
    for (AutoCloseable closeable : closeAfter) {
      closeable.close();
    }
    server.close();
  }

  // --- helpers ---------------------------------------------------------------------------------

  private HttpResponse<String> call(String method, String path, Map<String, String> params)
      throws IOException, InterruptedException {
    String form =
        params.entrySet().stream()
            .map(
                e ->
                    URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8)
                        + "="
                        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
            .collect(Collectors.joining("&"));
    boolean inBody = method.equals("POST") || method.equals("PUT") || method.equals("PATCH");
    HttpRequest.Builder request =
        HttpRequest.newBuilder(
                URI.create(
                    server.httpAddress() + path + (inBody || form.isEmpty() ? "" : "?" + form)))
            .timeout(Duration.ofSeconds(10));
    if (inBody) {
      request
          .header("Content-Type", "application/x-www-form-urlencoded")
          .method(method, HttpRequest.BodyPublishers.ofString(form));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static Map<String, String> params(String... keysAndValues) {
    Map<String, String> params = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      params.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return params;
  }

  private JsonNode ok(HttpResponse<String> response) throws IOException {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return json.readTree(response.body());
  }

  private void assertOk(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("ok");
  }

  private List<String> hosts(String service) throws Exception {
    JsonNode list = ok(call("GET", "/nacos/v1/ns/instance/list", params("serviceName", service)));
    List<String> hosts = new ArrayList<>();
    for (JsonNode host : list.get("hosts")) {
      hosts.add(host.get("ip").asText() + ":" + host.get("port").asInt());
    }
    hosts.sort(null);
    return hosts;
  }

  private Properties clientProperties() {
    Properties properties = new Properties();
    properties.put(PropertyKeyConst.SERVER_ADDR, "127.0.0.1:" + server.httpPort());
    return properties;
  }

  private NamingService officialClient() throws Exception {
    NamingService client = NacosFactory.createNamingService(clientProperties());
    closeAfter.add(client::shutDown);
    return client;
  }

  // --- v1 instances ----------------------------------------------------------------------------

  @Test
  void registersListsUpdatesPatchesAndDeregistersAnInstanceOverV1() throws Exception {
    assertOk(
        call(
            "POST",
            "/nacos/v1/ns/instance",
            params(
                "serviceName", "GROUP_A@@orders",
                "ip", "10.1.0.1",
                "port", "8080",
                "clusterName", "east",
                "weight", "2.5",
                "metadata", "{\"version\":\"1\"}")));

    JsonNode list =
        ok(
            call(
                "GET",
                "/nacos/v1/ns/instance/list",
                params("serviceName", "orders", "groupName", "GROUP_A", "clusters", "east")));
    assertThat(list.get("name").asText()).isEqualTo("GROUP_A@@orders");
    assertThat(list.get("clusters").asText()).isEqualTo("east");
    JsonNode host = list.get("hosts").get(0);
    assertThat(host.get("instanceId").asText()).isEqualTo("10.1.0.1#8080#east#GROUP_A@@orders");
    assertThat(host.get("weight").asDouble()).isEqualTo(2.5);
    assertThat(host.get("metadata").get("version").asText()).isEqualTo("1");
    assertThat(host.get("ephemeral").asBoolean()).isTrue();
    assertThat(
            server
                .naming()
                .publishedBy(
                    io.sluice.server.naming.NamingService.heartbeatOwnerOf("10.1.0.1", 8080),
                    ServiceKey.of("public", "GROUP_A", "orders")))
        .hasSize(1);

    JsonNode detail =
        ok(
            call(
                "GET",
                "/nacos/v1/ns/instance",
                params(
                    "serviceName", "GROUP_A@@orders",
                    "ip", "10.1.0.1",
                    "port", "8080",
                    "cluster", "east")));
    assertThat(detail.get("service").asText()).isEqualTo("GROUP_A@@orders");
    assertThat(detail.get("clusterName").asText()).isEqualTo("east");
    assertThat(detail.get("healthy").asBoolean()).isTrue();

    assertOk(
        call(
            "PUT",
            "/nacos/v1/ns/instance",
            params(
                "serviceName", "GROUP_A@@orders",
                "ip", "10.1.0.1",
                "port", "8080",
                "clusterName", "east",
                "weight", "7",
                "enabled", "false",
                "metadata", "version=2")));
    host = instanceDetail("GROUP_A@@orders", "10.1.0.1", 8080, "east");
    assertThat(host.get("weight").asDouble()).isEqualTo(7.0);
    assertThat(host.get("metadata").get("version").asText()).isEqualTo("2");
    // Disabled instances are not handed out.
    assertThat(hosts("GROUP_A@@orders")).isEmpty();

    assertOk(
        call(
            "PATCH",
            "/nacos/v1/ns/instance",
            params(
                "serviceName", "GROUP_A@@orders",
                "ip", "10.1.0.1",
                "port", "8080",
                "clusterName", "east",
                "enabled", "true")));
    host = instanceDetail("GROUP_A@@orders", "10.1.0.1", 8080, "east");
    assertThat(host.get("weight").asDouble()).isEqualTo(7.0);
    assertThat(hosts("GROUP_A@@orders")).containsExactly("10.1.0.1:8080");

    assertOk(
        call(
            "DELETE",
            "/nacos/v1/ns/instance",
            params(
                "serviceName", "orders",
                "groupName", "GROUP_A",
                "ip", "10.1.0.1",
                "port", "8080",
                "clusterName", "east")));
    assertThat(hosts("GROUP_A@@orders")).isEmpty();
    assertThat(
            call(
                    "GET",
                    "/nacos/v1/ns/instance",
                    params("serviceName", "GROUP_A@@orders", "ip", "10.1.0.1", "port", "8080"))
                .statusCode())
        .isEqualTo(404);
  }

  private JsonNode instanceDetail(String service, String ip, int port, String cluster)
      throws Exception {
    return ok(
        call(
            "GET",
            "/nacos/v1/ns/instance",
            params(
                "serviceName",
                service,
                "ip",
                ip,
                "port",
                String.valueOf(port),
                "clusterName",
                cluster)));
  }

  @Test
  void answersBeatsAndTellsAClientWhoseInstanceIsGoneToRegisterAgain() throws Exception {
    JsonNode unknown =
        ok(
            call(
                "PUT",
                "/nacos/v1/ns/instance/beat",
                params("serviceName", "DEFAULT_GROUP@@beating", "ip", "10.2.0.1", "port", "80")));
    assertThat(unknown.toString())
        .isEqualTo("{\"clientBeatInterval\":5000,\"code\":20404,\"lightBeatEnabled\":true}");
    assertThat(hosts("beating")).isEmpty();

    String beat =
        "{\"cluster\":\"DEFAULT\",\"ip\":\"10.2.0.1\",\"port\":80,\"serviceName\":"
            + "\"DEFAULT_GROUP@@beating\",\"weight\":1.0,\"metadata\":{\"from\":\"beat\"},"
            + "\"scheduled\":false,\"period\":5000,\"stopped\":false}";
    JsonNode registered =
        ok(
            call(
                "PUT",
                "/nacos/v1/ns/instance/beat",
                params("serviceName", "DEFAULT_GROUP@@beating", "beat", beat)));
    assertThat(registered.toString())
        .isEqualTo("{\"clientBeatInterval\":5000,\"code\":10200,\"lightBeatEnabled\":true}");
    assertThat(hosts("beating")).containsExactly("10.2.0.1:80");

    JsonNode light =
        ok(
            call(
                "PUT",
                "/nacos/v1/ns/instance/beat",
                params("serviceName", "DEFAULT_GROUP@@beating", "ip", "10.2.0.1", "port", "80")));
    assertThat(light.get("code").asInt()).isEqualTo(10200);

    JsonNode v2 =
        ok(
            call(
                "PUT",
                "/nacos/v2/ns/instance/beat",
                params("serviceName", "beating", "ip", "10.2.0.1", "port", "80")));
    assertThat(v2.get("code").asInt()).isEqualTo(10200);
  }

  // --- v1 services -----------------------------------------------------------------------------

  @Test
  void createsUpdatesListsAndDeletesServicesOverV1() throws Exception {
    assertOk(
        call(
            "POST",
            "/nacos/v1/ns/service",
            params(
                "serviceName", "catalog",
                "groupName", "SVC",
                "protectThreshold", "0.5",
                "metadata", "{\"owner\":\"team-a\"}",
                "selector", "{\"type\":\"none\"}")));
    HttpResponse<String> again =
        call("POST", "/nacos/v1/ns/service", params("serviceName", "SVC@@catalog"));
    assertThat(again.statusCode()).isEqualTo(400);
    assertThat(again.body()).contains("already exists");

    JsonNode detail =
        ok(
            call(
                "GET",
                "/nacos/v1/ns/service",
                params("serviceName", "catalog", "groupName", "SVC")));
    assertThat(detail.get("name").asText()).isEqualTo("catalog");
    assertThat(detail.get("groupName").asText()).isEqualTo("SVC");
    assertThat(detail.get("namespaceId").asText()).isEqualTo("public");
    assertThat(detail.get("protectThreshold").asDouble()).isEqualTo(0.5);
    assertThat(detail.get("metadata").get("owner").asText()).isEqualTo("team-a");
    assertThat(detail.get("selector").get("type").asText()).isEqualTo("none");

    assertOk(
        call(
            "PUT",
            "/nacos/v1/ns/service",
            params("serviceName", "SVC@@catalog", "protectThreshold", "0.8")));
    detail = ok(call("GET", "/nacos/v1/ns/service", params("serviceName", "SVC@@catalog")));
    assertThat(detail.get("protectThreshold").asDouble())
        .isCloseTo(0.8, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(detail.get("metadata").size()).isZero();

    for (String name : List.of("b-svc", "a-svc", "c-svc")) {
      assertOk(
          call("POST", "/nacos/v1/ns/service", params("serviceName", name, "groupName", "PAGED")));
    }
    JsonNode page =
        ok(
            call(
                "GET",
                "/nacos/v1/ns/service/list",
                params("groupName", "PAGED", "pageNo", "2", "pageSize", "2")));
    assertThat(page.toString()).isEqualTo("{\"count\":3,\"doms\":[\"c-svc\"]}");

    assertOk(
        call(
            "POST",
            "/nacos/v1/ns/instance",
            params("serviceName", "SVC@@catalog", "ip", "10.3.0.1", "port", "1")));
    HttpResponse<String> notEmpty =
        call("DELETE", "/nacos/v1/ns/service", params("serviceName", "SVC@@catalog"));
    assertThat(notEmpty.statusCode()).isEqualTo(400);
    assertThat(notEmpty.body()).contains("is not empty");
    assertOk(
        call(
            "DELETE",
            "/nacos/v1/ns/instance",
            params("serviceName", "SVC@@catalog", "ip", "10.3.0.1", "port", "1")));
    assertOk(call("DELETE", "/nacos/v1/ns/service", params("serviceName", "SVC@@catalog")));
    assertThat(
            call("GET", "/nacos/v1/ns/service", params("serviceName", "SVC@@catalog")).statusCode())
        .isEqualTo(400);
  }

  // --- v2 --------------------------------------------------------------------------------------

  @Test
  void speaksTheV2EnvelopeAndNacosErrorCodes() throws Exception {
    JsonNode created =
        ok(
            call(
                "POST",
                "/nacos/v2/ns/service",
                params("serviceName", "v2svc", "groupName", "G2", "protectThreshold", "0.1")));
    assertThat(created.toString())
        .isEqualTo("{\"code\":0,\"message\":\"success\",\"data\":\"ok\"}");

    HttpResponse<String> exists =
        call("POST", "/nacos/v2/ns/service", params("serviceName", "v2svc", "groupName", "G2"));
    assertThat(exists.statusCode()).isEqualTo(400);
    JsonNode error = json.readTree(exists.body());
    assertThat(error.get("code").asInt()).isEqualTo(21007);
    assertThat(error.get("message").asText()).isEqualTo("service already exist");

    JsonNode registered =
        ok(
            call(
                "POST",
                "/nacos/v2/ns/instance",
                params(
                    "serviceName", "v2svc",
                    "groupName", "G2",
                    "ip", "10.4.0.1",
                    "port", "9000",
                    "metadata", "{\"k\":\"v\"}")));
    assertThat(registered.get("data").asText()).isEqualTo("ok");

    JsonNode list =
        ok(
            call(
                "GET",
                "/nacos/v2/ns/instance/list",
                params("serviceName", "v2svc", "groupName", "G2")));
    assertThat(list.get("code").asInt()).isZero();
    assertThat(list.get("data").get("name").asText()).isEqualTo("G2@@v2svc");
    assertThat(list.get("data").get("hosts").get(0).get("ip").asText()).isEqualTo("10.4.0.1");

    JsonNode detail =
        ok(
            call(
                "GET",
                "/nacos/v2/ns/instance",
                params(
                    "serviceName", "v2svc", "groupName", "G2", "ip", "10.4.0.1", "port", "9000")));
    assertThat(detail.get("data").get("serviceName").asText()).isEqualTo("G2@@v2svc");
    assertThat(detail.get("data").get("metadata").get("k").asText()).isEqualTo("v");

    JsonNode service =
        ok(call("GET", "/nacos/v2/ns/service", params("serviceName", "v2svc", "groupName", "G2")));
    assertThat(service.get("data").get("serviceName").asText()).isEqualTo("v2svc");
    assertThat(
            service
                .get("data")
                .get("clusterMap")
                .get("DEFAULT")
                .get("healthChecker")
                .get("type")
                .asText())
        .isEqualTo("TCP");

    JsonNode services = ok(call("GET", "/nacos/v2/ns/service/list", params("groupName", "G2")));
    assertThat(services.get("data").toString()).isEqualTo("{\"count\":1,\"services\":[\"v2svc\"]}");

    HttpResponse<String> missing = call("POST", "/nacos/v2/ns/instance", params("ip", "10.4.0.2"));
    assertThat(missing.statusCode()).isEqualTo(400);
    assertThat(json.readTree(missing.body()).get("code").asInt()).isEqualTo(10000);

    HttpResponse<String> badWeight =
        call(
            "POST",
            "/nacos/v2/ns/instance",
            params("serviceName", "v2svc", "ip", "10.4.0.2", "port", "1", "weight", "20000"));
    assertThat(json.readTree(badWeight.body()).get("code").asInt()).isEqualTo(21001);

    HttpResponse<String> notFound =
        call("PUT", "/nacos/v2/ns/service", params("serviceName", "nothing-here"));
    assertThat(notFound.statusCode()).isEqualTo(400);
    assertThat(json.readTree(notFound.body()).get("code").asInt()).isEqualTo(21008);

    ok(
        call(
            "DELETE",
            "/nacos/v2/ns/instance",
            params("serviceName", "v2svc", "groupName", "G2", "ip", "10.4.0.1", "port", "9000")));
    assertThat(
            ok(call(
                    "DELETE",
                    "/nacos/v2/ns/service",
                    params("serviceName", "v2svc", "groupName", "G2")))
                .get("data")
                .asText())
        .isEqualTo("ok");
  }

  // --- bad input -------------------------------------------------------------------------------

  @Test
  void rejectsBadInputWithA400AndChangesNothing() throws Exception {
    List<Map<String, String>> bad =
        List.of(
            params("ip", "10.5.0.1", "port", "80"),
            params("serviceName", "bad", "port", "80"),
            params("serviceName", "bad", "ip", "10.5.0.1"),
            params("serviceName", "bad", "ip", "10.5.0.1", "port", "eighty"),
            params("serviceName", "bad", "ip", "10.5.0.1", "port", "70000"),
            params("serviceName", "bad", "ip", "10.5.0.1 OR 1=1", "port", "80"),
            params("serviceName", "bad", "ip", "10.5.0.1", "port", "80", "weight", "-1"),
            params("serviceName", "bad", "ip", "10.5.0.1", "port", "80", "weight", "heavy"),
            params("serviceName", "bad", "ip", "10.5.0.1", "port", "80", "metadata", "{\"a\":"),
            params("serviceName", "bad", "ip", "10.5.0.1", "port", "80", "metadata", "{\"a\":{}}"),
            params(
                "serviceName",
                "bad",
                "ip",
                "10.5.0.1",
                "port",
                "80",
                "metadata",
                "{\"big\":\"" + "x".repeat(20_000) + "\"}"),
            params("serviceName", "bad", "ip", "10.5.0.1", "port", "80", "namespaceId", "no/such"),
            params("serviceName", "bad", "ip", "10.5.0.1", "port", "80", "clusterName", "a b"),
            params("serviceName", "bad", "ip", "10.5.0.1", "port", "80", "healthy", "maybe"));
    for (Map<String, String> params : bad) {
      HttpResponse<String> response = call("POST", "/nacos/v1/ns/instance", params);
      assertThat(response.statusCode()).as(params.toString()).isEqualTo(400);
      assertThat(response.body()).as(params.toString()).isNotBlank();
    }
    assertThat(hosts("bad")).isEmpty();
    assertThat(server.naming().exists(ServiceKey.of("public", null, "bad"))).isFalse();

    for (Map<String, String> paging :
        List.of(
            params("pageNo", "1"),
            params("pageNo", "0", "pageSize", "10"),
            params("pageNo", "x", "pageSize", "10"),
            params("pageNo", "1", "pageSize", "-5"))) {
      assertThat(call("GET", "/nacos/v1/ns/service/list", paging).statusCode())
          .as(paging.toString())
          .isEqualTo(400);
    }
    assertThat(
            call(
                    "POST",
                    "/nacos/v1/ns/service",
                    params("serviceName", "bad", "protectThreshold", "2"))
                .statusCode())
        .isEqualTo(400);
    assertThat(
            call(
                    "POST",
                    "/nacos/v1/ns/service",
                    params("serviceName", "bad", "selector", "{\"type\":\"magic\"}"))
                .statusCode())
        .isEqualTo(400);
    assertThat(
            call(
                    "POST",
                    "/nacos/v1/ns/service",
                    params("serviceName", "bad", "metadata", "{\"sluice.healthCheck\":\"SMOKE\"}"))
                .statusCode())
        .isEqualTo(400);
    assertThat(server.naming().exists(ServiceKey.of("public", null, "bad"))).isFalse();
    // Still serving.
    assertThat(call("GET", "/nacos/v1/console/health/liveness", Map.of()).statusCode())
        .isEqualTo(200);
  }

  // --- metrics and probes ----------------------------------------------------------------------

  @Test
  void reportsMetricsWithStatusUpAndKeepsTheProbes() throws Exception {
    JsonNode metrics = ok(call("GET", "/nacos/v1/ns/operator/metrics", Map.of()));
    assertThat(metrics.get("status").asText()).isEqualTo("UP");
    assertThat(metrics.has("serviceCount")).isTrue();
    assertThat(metrics.has("instanceCount")).isTrue();
    assertThat(metrics.has("subscribeCount")).isTrue();
    assertThat(call("GET", "/nacos/v1/console/health/liveness", Map.of()).body()).isEqualTo("OK");
    assertThat(call("GET", "/nacos/v1/console/health/readiness", Map.of()).body()).isEqualTo("OK");
  }

  // --- with the official client ----------------------------------------------------------------

  @Test
  void pushesAnInstanceRegisteredOverHttpToAGrpcSubscriber() throws Exception {
    NamingService consumer = officialClient();
    List<List<String>> seen = new CopyOnWriteArrayList<>();
    consumer.subscribe(
        "mixed",
        event -> {
          if (event instanceof NamingEvent naming) {
            seen.add(
                naming.getInstances().stream()
                    .map(i -> i.getIp() + ":" + i.getPort() + ":" + i.isHealthy())
                    .sorted()
                    .toList());
          }
        });

    assertOk(
        call(
            "POST",
            "/nacos/v1/ns/instance",
            params("serviceName", "mixed", "ip", "10.6.0.1", "port", "80")));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(seen).contains(List.of("10.6.0.1:80:true")));

    assertOk(
        call(
            "DELETE",
            "/nacos/v1/ns/instance",
            params("serviceName", "mixed", "ip", "10.6.0.1", "port", "80")));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(consumer.getAllInstances("mixed", false)).isEmpty());
  }

  @Test
  void listsTheOfficialClientsSubscribingToAService() throws Exception {
    JsonNode none =
        ok(call("GET", "/nacos/v1/ns/service/subscribers", params("serviceName", "watched")));
    assertThat(none.get("count").asInt()).isZero();

    NamingService first = officialClient();
    NamingService second = officialClient();
    first.subscribe("watched", event -> {});
    EventListener east = event -> {};
    second.subscribe("watched", List.of("east"), east);

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                ok(call(
                            "GET",
                            "/nacos/v1/ns/service/subscribers",
                            params("serviceName", "watched")))
                        .get("count")
                        .asInt()
                    == 2);
    JsonNode all =
        ok(call("GET", "/nacos/v1/ns/service/subscribers", params("serviceName", "watched")));
    List<String> clusters = new ArrayList<>();
    for (JsonNode subscriber : all.get("subscribers")) {
      assertThat(subscriber.get("agent").asText()).startsWith("Nacos-Java-Client:v");
      assertThat(subscriber.get("serviceName").asText()).isEqualTo("DEFAULT_GROUP@@watched");
      assertThat(subscriber.get("namespaceId").asText()).isEqualTo("public");
      assertThat(subscriber.get("addrStr").asText())
          .isEqualTo(subscriber.get("ip").asText() + ":" + subscriber.get("port").asInt());
      clusters.add(subscriber.get("cluster").asText());
    }
    assertThat(clusters).containsExactlyInAnyOrder("", "east");

    JsonNode secondPage =
        ok(call(
                "GET",
                "/nacos/v2/ns/service/subscribers",
                params("serviceName", "watched", "pageNo", "2", "pageSize", "1")))
            .get("data");
    assertThat(secondPage.get("count").asInt()).isEqualTo(2);
    assertThat(secondPage.get("subscribers")).hasSize(1);

    second.unsubscribe("watched", List.of("east"), east);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        ok(call(
                                "GET",
                                "/nacos/v1/ns/service/subscribers",
                                params("serviceName", "watched")))
                            .get("subscribers"))
                    .singleElement()
                    .satisfies(left -> assertThat(left.get("cluster").asText()).isEmpty()));
  }

  @Test
  void returnsEveryInstanceWhenTheHealthyShareFallsToTheProtectThreshold() throws Exception {
    NamingMaintainService maintain = NacosFactory.createMaintainService(clientProperties());
    closeAfter.add(maintain::shutDown);
    Service service = new Service("protected");
    service.setGroupName("DEFAULT_GROUP");
    service.setProtectThreshold(0.6f);
    maintain.createService(service, new NoneSelector());
    assertThat(maintain.queryService("protected", "DEFAULT_GROUP").getProtectThreshold())
        .isEqualTo(0.6f);

    for (int i = 1; i <= 3; i++) {
      assertOk(
          call(
              "POST",
              "/nacos/v1/ns/instance",
              params(
                  "serviceName",
                  "protected",
                  "ip",
                  "10.7.0." + i,
                  "port",
                  "80",
                  "healthy",
                  i == 1 ? "true" : "false")));
    }
    NamingService consumer = officialClient();
    // 1 of 3 healthy is below 0.6: everything is returned, marked healthy.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(consumer.selectInstances("protected", true)).hasSize(3));
    JsonNode list =
        ok(
            call(
                "GET",
                "/nacos/v1/ns/instance/list",
                params("serviceName", "protected", "healthyOnly", "true")));
    assertThat(list.get("reachProtectionThreshold").asBoolean()).isTrue();
    assertThat(list.get("hosts")).hasSize(3);

    service.setProtectThreshold(0f);
    maintain.updateService(service, new NoneSelector());
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(consumer.selectInstances("protected", true))
                    .singleElement()
                    .satisfies(i -> assertThat(i.getIp()).isEqualTo("10.7.0.1")));
    list =
        ok(
            call(
                "GET",
                "/nacos/v1/ns/instance/list",
                params("serviceName", "protected", "healthyOnly", "true")));
    assertThat(list.get("reachProtectionThreshold").asBoolean()).isFalse();
    assertThat(list.get("hosts")).hasSize(1);
  }

  // --- persistent instances and health checks --------------------------------------------------

  @Test
  void keepsPersistentInstancesThroughTheLogAndRefusesToMixKinds() throws Exception {
    int closedPort = closedPort();
    assertOk(
        call(
            "POST",
            "/nacos/v1/ns/instance",
            params(
                "serviceName", "durable",
                "ip", "127.0.0.1",
                "port", String.valueOf(closedPort),
                "ephemeral", "false",
                "metadata", "{\"role\":\"primary\"}")));
    ServiceKey durable = ServiceKey.of("public", null, "durable");
    assertThat(instanceAt(durable, "127.0.0.1:" + closedPort + "#DEFAULT")).isNotNull();
    JsonNode host =
        ok(call("GET", "/nacos/v1/ns/instance/list", params("serviceName", "durable")))
            .get("hosts")
            .get(0);
    assertThat(host.get("ephemeral").asBoolean()).isFalse();

    HttpResponse<String> mixed =
        call(
            "POST",
            "/nacos/v1/ns/instance",
            params("serviceName", "durable", "ip", "10.8.0.1", "port", "80"));
    assertThat(mixed.statusCode()).isEqualTo(400);
    assertThat(mixed.body()).contains("persistent");

    assertOk(
        call(
            "PUT",
            "/nacos/v1/ns/instance",
            params(
                "serviceName", "durable",
                "ip", "127.0.0.1",
                "port", String.valueOf(closedPort),
                "ephemeral", "false",
                "weight", "3")));
    assertThat(instanceAt(durable, "127.0.0.1:" + closedPort + "#DEFAULT").weight()).isEqualTo(3.0);

    assertOk(
        call(
            "DELETE",
            "/nacos/v1/ns/instance",
            params(
                "serviceName", "durable",
                "ip", "127.0.0.1",
                "port", String.valueOf(closedPort),
                "ephemeral", "false")));
    assertThat(hosts("durable")).isEmpty();
  }

  @Test
  void healthChecksMarkAnInstanceOnAClosedPortUnhealthyAndAListeningOneHealthy() throws Exception {
    int port = closedPort();
    assertOk(
        call(
            "POST",
            "/nacos/v1/ns/instance",
            params(
                "serviceName", "checked",
                "ip", "127.0.0.1",
                "port", String.valueOf(port),
                "ephemeral", "false")));
    ServiceKey checked = ServiceKey.of("public", null, "checked");
    String endpoint = "127.0.0.1:" + port + "#DEFAULT";
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(instanceAt(checked, endpoint).healthy()).isFalse());

    try (ServerSocket listening = new ServerSocket(port, 50, InetAddress.getLoopbackAddress())) {
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(instanceAt(checked, endpoint).healthy()).isTrue());
    }
  }

  @Test
  void checksAClusterOverHttpWhenItsHealthCheckerSaysSo() throws Exception {
    AtomicInteger status = new AtomicInteger(503);
    AtomicInteger hits = new AtomicInteger();
    HttpServer app =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    app.createContext(
        "/health",
        exchange -> {
          hits.incrementAndGet();
          exchange.sendResponseHeaders(status.get(), -1);
          exchange.close();
        });
    app.start();
    closeAfter.add(() -> app.stop(0));
    int port = app.getAddress().getPort();
    assertOk(call("POST", "/nacos/v1/ns/service", params("serviceName", "web")));
    assertOk(
        call(
            "PUT",
            "/nacos/v1/ns/cluster",
            params(
                "serviceName", "web",
                "clusterName", "DEFAULT",
                "healthChecker", "{\"type\":\"HTTP\",\"path\":\"/health\"}")));
    assertOk(
        call(
            "POST",
            "/nacos/v1/ns/instance",
            params(
                "serviceName", "web",
                "ip", "127.0.0.1",
                "port", String.valueOf(port),
                "ephemeral", "false")));
    ServiceKey web = ServiceKey.of("public", null, "web");
    String endpoint = "127.0.0.1:" + port + "#DEFAULT";

    // The TCP connect would pass; only the HTTP check sees the 503.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(instanceAt(web, endpoint).healthy()).isFalse());
    assertThat(hits.get()).isGreaterThanOrEqualTo(3);
    status.set(200);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(instanceAt(web, endpoint).healthy()).isTrue());
    // An update that knows nothing of health checks keeps them.
    assertOk(
        call(
            "PUT",
            "/nacos/v1/ns/service",
            params("serviceName", "web", "protectThreshold", "0", "metadata", "{\"a\":\"b\"}")));
    JsonNode detail = ok(call("GET", "/nacos/v1/ns/service", params("serviceName", "web")));
    assertThat(detail.get("clusters").get(0).get("healthChecker").get("type").asText())
        .isEqualTo("HTTP");
    assertThat(detail.get("metadata").get("a").asText()).isEqualTo("b");
  }

  /** A port nothing listens on, and that the kernel hands no one (see FreePorts). */
  private static int closedPort() {
    return FreePorts.unusedPort();
  }
}
