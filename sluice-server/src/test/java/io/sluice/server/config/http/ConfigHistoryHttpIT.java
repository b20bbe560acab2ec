package io.sluice.server.config.http;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.config.ContentMd5;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.FreePorts;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Config history over Nacos's v1 and v2 HTTP API, after publishes and a delete. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConfigHistoryHttpIT {
  static final String CONFIGS = "/nacos/v1/cs/configs";
  static final String HISTORY = "/nacos/v1/cs/history";
  static final String HISTORY_V2 = "/nacos/v2/cs/history";

  @TempDir static Path dataDir;

  private final ObjectMapper json = new ObjectMapper();
  private SluiceServer server;
  private OpenApiClient api;

  @BeforeAll
  void startServerAndWriteHistory() throws Exception {
    server = FreePorts.startServer(ServerOptions.builder().dataDir(dataDir));
    assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
    api = new OpenApiClient(server.httpAddress());
    for (String content : new String[] {"v=1", "v=2", "v=3"}) {
      api.post(
          CONFIGS,
          params(
              "dataId",
              "hist.properties",
              "group",
              "H",
              "tenant",
              "hist-ns",
              "content",
              content,
              "appName",
              "shop",
              "src_user",
              "bob"));
    }
    api.delete(CONFIGS, params("dataId", "hist.properties", "group", "H", "tenant", "hist-ns"));
    api.post(
        CONFIGS,
        params(
            "dataId",
            "other.yaml",
            "group",
            "H",
            "tenant",
            "hist-ns",
            "content",
            "o: 1",
            "type",
            "yaml"));
  }

  @AfterAll
  void stop() {
    server.close();
  }

  private JsonNode page(int pageNo, int pageSize) throws Exception {
    HttpResponse<String> response =
        api.get(
            HISTORY,
            params(
                "search",
                "accurate",
                "dataId",
                "hist.properties",
                "group",
                "H",
                "tenant",
                "hist-ns",
                "pageNo",
                String.valueOf(pageNo),
                "pageSize",
                String.valueOf(pageSize)));
    assertThat(response.statusCode()).isEqualTo(200);
    return json.readTree(response.body());
  }

  @Test
  void listsEveryPublishAndTheDeleteNewestFirst() throws Exception {
    JsonNode page = page(1, 10);

    assertThat(page.get("totalCount").asInt()).isEqualTo(4);
    assertThat(page.get("pageNumber").asInt()).isEqualTo(1);
    assertThat(page.get("pagesAvailable").asInt()).isEqualTo(1);
    List<String> ops = new ArrayList<>();
    page.get("pageItems").forEach(item -> ops.add(item.get("opType").asText()));
    assertThat(ops).containsExactly("D", "U", "U", "I");
    JsonNode newest = page.get("pageItems").get(0);
    assertThat(newest.get("id").isTextual()).isTrue();
    assertThat(newest.get("lastId").asLong()).isEqualTo(-1);
    assertThat(newest.get("dataId").asText()).isEqualTo("hist.properties");
    assertThat(newest.get("group").asText()).isEqualTo("H");
    assertThat(newest.get("tenant").asText()).isEqualTo("hist-ns");
    assertThat(newest.get("srcIp").asText()).isEqualTo("127.0.0.1");
    assertThat(newest.get("createdTime").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*\\+00:00");
    assertThat(newest.get("lastModifiedTime").asText()).endsWith("+00:00");

    JsonNode second = page(2, 3);
    assertThat(second.get("pagesAvailable").asInt()).isEqualTo(2);
    assertThat(second.get("pageItems")).hasSize(1);
    assertThat(second.get("pageItems").get(0).get("opType").asText()).isEqualTo("I");
  }

  @Test
  void showsOneEntryWithItsContentAndThePreviousOne() throws Exception {
    JsonNode items = page(1, 10).get("pageItems");
    String secondUpdate = items.get(1).get("id").asText();

    JsonNode entry =
        json.readTree(
            api.get(
                    HISTORY,
                    params(
                        "nid",
                        secondUpdate,
                        "dataId",
                        "hist.properties",
                        "group",
                        "H",
                        "tenant",
                        "hist-ns"))
                .body());
    assertThat(entry.get("content").asText()).isEqualTo("v=3");
    assertThat(entry.get("md5").asText()).isEqualTo(ContentMd5.of("v=3"));
    assertThat(entry.get("appName").asText()).isEqualTo("shop");
    assertThat(entry.get("srcUser").asText()).isEqualTo("bob");

    JsonNode previous =
        json.readTree(
            api.get(
                    HISTORY + "/previous",
                    params(
                        "id",
                        secondUpdate,
                        "dataId",
                        "hist.properties",
                        "group",
                        "H",
                        "tenant",
                        "hist-ns"))
                .body());
    assertThat(previous.get("content").asText()).isEqualTo("v=2");
    assertThat(previous.get("opType").asText()).isEqualTo("U");

    HttpResponse<String> someoneElses =
        api.get(
            HISTORY,
            params("nid", secondUpdate, "dataId", "other.yaml", "group", "H", "tenant", "hist-ns"));
    assertThat(someoneElses.statusCode()).isEqualTo(403);

    HttpResponse<String> missing =
        api.get(
            HISTORY,
            params(
                "nid", "999999", "dataId", "hist.properties", "group", "H", "tenant", "hist-ns"));
    assertThat(missing.statusCode()).isEqualTo(200);
    assertThat(missing.body()).isEmpty();
  }

  @Test
  void listsTheConfigsOfANamespace() throws Exception {
    JsonNode configs =
        json.readTree(api.get(HISTORY + "/configs", params("tenant", "hist-ns")).body());

    assertThat(configs).hasSize(1);
    assertThat(configs.get(0).get("dataId").asText()).isEqualTo("other.yaml");
    assertThat(configs.get(0).get("group").asText()).isEqualTo("H");
    assertThat(configs.get(0).get("tenant").asText()).isEqualTo("hist-ns");
    assertThat(configs.get(0).get("type").asText()).isEqualTo("yaml");
    assertThat(api.get(HISTORY + "/configs", params()).statusCode()).isEqualTo(400);
  }

  @Test
  void servesTheSameHistoryInTheV2Envelope() throws Exception {
    JsonNode list =
        json.readTree(
            api.get(
                    HISTORY_V2 + "/list",
                    params("dataId", "hist.properties", "group", "H", "namespaceId", "hist-ns"))
                .body());
    assertThat(list.get("code").asInt()).isZero();
    assertThat(list.get("data").get("totalCount").asInt()).isEqualTo(4);
    String insert = list.get("data").get("pageItems").get(3).get("id").asText();

    JsonNode entry =
        json.readTree(
            api.get(
                    HISTORY_V2,
                    params(
                        "nid",
                        insert,
                        "dataId",
                        "hist.properties",
                        "group",
                        "H",
                        "namespaceId",
                        "hist-ns"))
                .body());
    assertThat(entry.get("data").get("content").asText()).isEqualTo("v=1");

    HttpResponse<String> noPrevious =
        api.get(
            HISTORY_V2 + "/previous",
            params(
                "id", insert, "dataId", "hist.properties", "group", "H", "namespaceId", "hist-ns"));
    assertThat(noPrevious.statusCode()).isEqualTo(404);
    assertThat(json.readTree(noPrevious.body()).get("code").asInt()).isEqualTo(20004);

    JsonNode configs =
        json.readTree(api.get(HISTORY_V2 + "/configs", params("namespaceId", "hist-ns")).body());
    assertThat(configs.get("data")).hasSize(1);
  }

  @Test
  void refusesBadPagesAndMissingParameters() throws Exception {
    assertThat(
            api.get(
                    HISTORY,
                    params(
                        "search",
                        "accurate",
                        "dataId",
                        "hist.properties",
                        "group",
                        "H",
                        "pageNo",
                        "0"))
                .statusCode())
        .isEqualTo(400);
    assertThat(
            api.get(
                    HISTORY,
                    params(
                        "search",
                        "accurate",
                        "dataId",
                        "hist.properties",
                        "group",
                        "H",
                        "pageSize",
                        "many"))
                .statusCode())
        .isEqualTo(400);
    assertThat(api.get(HISTORY, params("dataId", "hist.properties", "group", "H")).statusCode())
        .isEqualTo(400);
    HttpResponse<String> v2Missing = api.get(HISTORY_V2 + "/list", params("group", "H"));
    assertThat(v2Missing.statusCode()).isEqualTo(400);
    assertThat(json.readTree(v2Missing.body()).get("code").asInt()).isEqualTo(10000);
  }
}
