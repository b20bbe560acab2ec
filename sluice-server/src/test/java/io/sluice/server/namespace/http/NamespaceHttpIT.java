package io.sluice.server.namespace.http;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.FreePorts;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Namespaces over Nacos's v1 and v2 console API, with configs published by the official client. */
class NamespaceHttpIT {
  static final String V1 = "/nacos/v1/console/namespaces";
  static final String V2 = "/nacos/v2/console/namespace";

  private final ObjectMapper json = new ObjectMapper();

  private static SluiceServer start(Path dataDir) {
    SluiceServer server = FreePorts.startServer(ServerOptions.builder().dataDir(dataDir));
    assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
    return server;
  }

  private JsonNode namespaceIn(JsonNode list, String id) {
    for (JsonNode namespace : list) {
      if (namespace.get("namespace").asText().equals(id)) {
        return namespace;
      }
    }
    return null;
  }

  @Test
  void createsListsEditsAndDeletesNamespacesThatSurviveARestart(@TempDir Path dataDir)
      throws Exception {
    try (SluiceServer server = start(dataDir)) {
      OpenApiClient api = new OpenApiClient(server.httpAddress());
      assertThat(
              api.post(
                      V1,
                      params(
                          "customNamespaceId",
                          "dev",
                          "namespaceName",
                          "Dev",
                          "namespaceDesc",
                          "for devs"))
                  .body())
          .isEqualTo("true");
      assertThat(api.post(V1, params("customNamespaceId", "dev", "namespaceName", "Again")).body())
          .isEqualTo("false");
      assertThat(api.post(V1, params("customNamespaceId", "", "namespaceName", "Generated")).body())
          .isEqualTo("true");
      assertThat(api.post(V1, params("customNamespaceId", "bad id", "namespaceName", "X")).body())
          .isEqualTo("false");
      assertThat(api.post(V1, params("customNamespaceId", "public", "namespaceName", "X")).body())
          .isEqualTo("false");
      assertThat(api.post(V1, params("customNamespaceId", "tmp", "namespaceName", "Tmp")).body())
          .isEqualTo("true");

      JsonNode listed = json.readTree(api.get(V1, params()).body());
      assertThat(listed.get("code").asInt()).isEqualTo(200);
      JsonNode all = listed.get("data");
      assertThat(all).hasSize(4);
      assertThat(all.get(0).get("namespace").asText()).isEmpty();
      assertThat(all.get(0).get("namespaceShowName").asText()).isEqualTo("public");
      assertThat(all.get(0).get("type").asInt()).isZero();
      JsonNode dev = namespaceIn(all, "dev");
      assertThat(dev.get("namespaceShowName").asText()).isEqualTo("Dev");
      assertThat(dev.get("namespaceDesc").asText()).isEqualTo("for devs");
      assertThat(dev.get("quota").asInt()).isEqualTo(200);
      assertThat(dev.get("type").asInt()).isEqualTo(2);
      String generated = all.get(2).get("namespace").asText();
      assertThat(generated).matches("[0-9a-f-]{36}");

      assertThat(
              api.get(V1, params("checkNamespaceIdExist", "true", "customNamespaceId", "dev"))
                  .body())
          .isEqualTo("true");
      assertThat(
              api.get(V1, params("checkNamespaceIdExist", "true", "customNamespaceId", "nope"))
                  .body())
          .isEqualTo("false");

      assertThat(
              api.put(
                      V1,
                      params(
                          "namespace",
                          "dev",
                          "namespaceShowName",
                          "Development",
                          "namespaceDesc",
                          "renamed"))
                  .body())
          .isEqualTo("true");
      JsonNode detail =
          json.readTree(api.get(V1, params("show", "all", "namespaceId", "dev")).body());
      assertThat(detail.get("namespaceShowName").asText()).isEqualTo("Development");
      assertThat(detail.get("namespaceDesc").asText()).isEqualTo("renamed");

      assertThat(api.delete(V1, params("namespaceId", "tmp")).body()).isEqualTo("true");
      assertThat(api.delete(V1, params("namespaceId", "public")).body()).isEqualTo("false");
      assertThat(api.delete(V1, params("namespaceId", "")).body()).isEqualTo("false");
      assertThat(api.get(V1, params("show", "all", "namespaceId", "tmp")).statusCode())
          .isEqualTo(404);
    }

    try (SluiceServer restarted = start(dataDir)) {
      OpenApiClient api = new OpenApiClient(restarted.httpAddress());
      JsonNode all = json.readTree(api.get(V1, params()).body()).get("data");
      assertThat(all).hasSize(3);
      assertThat(namespaceIn(all, "dev").get("namespaceShowName").asText())
          .isEqualTo("Development");
      assertThat(namespaceIn(all, "tmp")).isNull();
    }
  }

  @Test
  void countsTheConfigsTheOfficialClientPublishesIntoANamespace(@TempDir Path dataDir)
      throws Exception {
    System.setProperty("JM.LOG.PATH", Path.of("target", "nacos-client-logs").toString());
    try (SluiceServer server = start(dataDir)) {
      OpenApiClient api = new OpenApiClient(server.httpAddress());
      api.post(V1, params("customNamespaceId", "shop", "namespaceName", "Shop"));
      Properties properties = new Properties();
      properties.put(PropertyKeyConst.SERVER_ADDR, "127.0.0.1:" + server.httpPort());
      properties.put(PropertyKeyConst.NAMESPACE, "shop");
      ConfigService client = NacosFactory.createConfigService(properties);
      try {
        assertThat(client.publishConfig("a.yaml", "DEFAULT_GROUP", "a: 1")).isTrue();
        assertThat(client.publishConfig("b.yaml", "DEFAULT_GROUP", "b: 1")).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> "UP".equals(client.getServerStatus()));

        JsonNode shop =
            namespaceIn(json.readTree(api.get(V1, params()).body()).get("data"), "shop");
        assertThat(shop.get("configCount").asInt()).isEqualTo(2);
        JsonNode v2Detail = json.readTree(api.get(V2, params("namespaceId", "shop")).body());
        assertThat(v2Detail.get("data").get("configCount").asInt()).isEqualTo(2);

        // What the client published over gRPC reads back over HTTP in the same namespace.
        assertThat(
                api.get(
                        "/nacos/v1/cs/configs",
                        params("dataId", "a.yaml", "group", "DEFAULT_GROUP", "tenant", "shop"))
                    .body())
            .isEqualTo("a: 1");
      } finally {
        client.shutDown();
      }
    }
  }

  @Test
  void answersTheV2ApiInItsEnvelopeWithNamespaceErrorCodes(@TempDir Path dataDir) throws Exception {
    try (SluiceServer server = start(dataDir)) {
      OpenApiClient api = new OpenApiClient(server.httpAddress());

      JsonNode created =
          json.readTree(api.post(V2, params("namespaceId", "v2", "namespaceName", "V2")).body());
      assertThat(created.get("code").asInt()).isZero();
      assertThat(created.get("data").asBoolean()).isTrue();

      HttpResponse<String> duplicate =
          api.post(V2, params("namespaceId", "v2", "namespaceName", "V2"));
      assertThat(duplicate.statusCode()).isEqualTo(409);
      assertThat(json.readTree(duplicate.body()).get("code").asInt()).isEqualTo(22002);

      HttpResponse<String> invalid =
          api.post(V2, params("namespaceId", "a b", "namespaceName", "X"));
      assertThat(invalid.statusCode()).isEqualTo(400);
      assertThat(json.readTree(invalid.body()).get("code").asInt()).isEqualTo(22000);

      HttpResponse<String> noName = api.post(V2, params("namespaceId", "x"));
      assertThat(noName.statusCode()).isEqualTo(400);
      assertThat(json.readTree(noName.body()).get("code").asInt()).isEqualTo(10000);

      JsonNode list = json.readTree(api.get(V2 + "/list", params()).body());
      assertThat(list.get("data")).hasSize(2);

      assertThat(
              json.readTree(
                      api.put(V2, params("namespaceId", "v2", "namespaceName", "Renamed")).body())
                  .get("data")
                  .asBoolean())
          .isTrue();
      HttpResponse<String> missing =
          api.put(V2, params("namespaceId", "nope", "namespaceName", "X"));
      assertThat(missing.statusCode()).isEqualTo(404);
      assertThat(json.readTree(missing.body()).get("code").asInt()).isEqualTo(22001);
      HttpResponse<String> noSuchDetail = api.get(V2, params("namespaceId", "nope"));
      assertThat(noSuchDetail.statusCode()).isEqualTo(404);
      assertThat(json.readTree(noSuchDetail.body()).get("code").asInt()).isEqualTo(22001);

      assertThat(
              json.readTree(api.delete(V2, params("namespaceId", "v2")).body())
                  .get("data")
                  .asBoolean())
          .isTrue();
      assertThat(json.readTree(api.get(V2 + "/list", params()).body()).get("data")).hasSize(1);
    }
  }
}
