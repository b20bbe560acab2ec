package io.sluice.server.config.http;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ContentMd5;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.FreePorts;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Nacos's v1 and v2 config Open API against a real server, as curl or a script would call it. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConfigHttpApiIT {
  static final String CONFIGS = "/nacos/v1/cs/configs";
  static final String V2 = "/nacos/v2/cs/config";
  static final long MAX_CONTENT = 64 * 1024;

  @TempDir static Path dataDir;

  private final ObjectMapper json = new ObjectMapper();
  private SluiceServer server;
  private OpenApiClient api;

  @BeforeAll
  void startServer() {
    server =
        FreePorts.startServer(
            ServerOptions.builder().dataDir(dataDir).maxContentBytes(MAX_CONTENT));
    assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
    api = new OpenApiClient(server.httpAddress());
  }

  @AfterAll
  void stop() {
    server.close();
  }

  @Test
  void publishesReadsAndDeletesAConfigWithNacosHeaders() throws Exception {
    HttpResponse<String> published =
        api.post(
            CONFIGS,
            params(
                "dataId",
                "crud.yaml",
                "group",
                "DEFAULT_GROUP",
                "content",
                "k: v",
                "type",
                "yaml"));
    assertThat(published.statusCode()).isEqualTo(200);
    assertThat(published.body()).isEqualTo("true");

    HttpResponse<String> read =
        api.get(CONFIGS, params("dataId", "crud.yaml", "group", "DEFAULT_GROUP"));
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(read.body()).isEqualTo("k: v");
    assertThat(read.headers().firstValue("Content-MD5")).hasValue(ContentMd5.of("k: v"));
    assertThat(read.headers().firstValue("Config-Type")).hasValue("yaml");
    assertThat(read.headers().firstValue("Content-Type")).hasValue("text/plain;charset=UTF-8");
    assertThat(read.headers().firstValue("Last-Modified")).get().asString().endsWith(" GMT");
    assertThat(read.headers().firstValue("Pragma")).hasValue("no-cache");
    assertThat(read.headers().firstValue("Cache-Control")).hasValue("no-cache,no-store");
    assertThat(read.headers().firstValue("isBeta")).isEmpty();

    HttpResponse<String> deleted =
        api.delete(CONFIGS, params("dataId", "crud.yaml", "group", "DEFAULT_GROUP"));
    assertThat(deleted.statusCode()).isEqualTo(200);
    assertThat(deleted.body()).isEqualTo("true");
    HttpResponse<String> gone =
        api.get(CONFIGS, params("dataId", "crud.yaml", "group", "DEFAULT_GROUP"));
    assertThat(gone.statusCode()).isEqualTo(404);
    assertThat(gone.body()).isEqualTo("config data not exist\n");
  }

  @Test
  void takesParametersFromTheQueryStringAsNacosDoes() throws Exception {
    HttpResponse<String> published =
        api.postRaw(
            CONFIGS
                + "?"
                + OpenApiClient.form(
                    params(
                        "dataId",
                        "query.json",
                        "group",
                        "G",
                        "content",
                        "{\"a\":1}",
                        "type",
                        "json")),
            "");
    assertThat(published.body()).isEqualTo("true");

    HttpResponse<String> read = api.get(CONFIGS, params("dataId", "query.json", "group", "G"));
    assertThat(read.body()).isEqualTo("{\"a\":1}");
    assertThat(read.headers().firstValue("Content-Type"))
        .hasValue("application/json;charset=UTF-8");
  }

  @Test
  void treatsTheEmptyAndThePublicTenantAsOneNamespace() throws Exception {
    api.post(
        CONFIGS, params("dataId", "ns.txt", "group", "G", "content", "public", "tenant", "public"));
    api.post(CONFIGS, params("dataId", "ns.txt", "group", "G", "content", "dev", "tenant", "dev"));

    assertThat(api.get(CONFIGS, params("dataId", "ns.txt", "group", "G")).body())
        .isEqualTo("public");
    assertThat(api.get(CONFIGS, params("dataId", "ns.txt", "group", "G", "tenant", "dev")).body())
        .isEqualTo("dev");
  }

  @Test
  void servesTheBetaVersionOnlyToTheListedAddresses() throws Exception {
    api.post(CONFIGS, params("dataId", "beta.properties", "group", "G", "content", "v=formal"));
    HttpResponse<String> beta =
        api.post(
            CONFIGS,
            params("dataId", "beta.properties", "group", "G", "content", "v=beta"),
            "betaIps",
            "10.9.9.9,10.9.9.10");
    assertThat(beta.body()).isEqualTo("true");

    HttpResponse<String> asBetaClient =
        api.get(
            CONFIGS,
            params("dataId", "beta.properties", "group", "G"),
            "X-Forwarded-For",
            "10.9.9.9");
    assertThat(asBetaClient.body()).isEqualTo("v=beta");
    assertThat(asBetaClient.headers().firstValue("isBeta")).hasValue("true");
    assertThat(api.get(CONFIGS, params("dataId", "beta.properties", "group", "G")).body())
        .isEqualTo("v=formal");

    JsonNode query =
        json.readTree(
            api.get(CONFIGS, params("dataId", "beta.properties", "group", "G", "beta", "true"))
                .body());
    assertThat(query.get("code").asInt()).isEqualTo(200);
    assertThat(query.get("data").get("content").asText()).isEqualTo("v=beta");
    assertThat(query.get("data").get("betaIps").asText()).isEqualTo("10.9.9.10,10.9.9.9");

    JsonNode stopped =
        json.readTree(
            api.delete(CONFIGS, params("dataId", "beta.properties", "group", "G", "beta", "true"))
                .body());
    assertThat(stopped.get("message").asText()).isEqualTo("stop beta ok");
    assertThat(stopped.get("data").asBoolean()).isTrue();
    assertThat(
            api.get(
                    CONFIGS,
                    params("dataId", "beta.properties", "group", "G"),
                    "X-Forwarded-For",
                    "10.9.9.9")
                .body())
        .isEqualTo("v=formal");
    assertThat(
            json.readTree(
                    api.get(
                            CONFIGS,
                            params("dataId", "beta.properties", "group", "G", "beta", "true"))
                        .body())
                .get("data")
                .isNull())
        .isTrue();
  }

  @Test
  void appliesACompareAndSetOnlyOverTheExpectedMd5() throws Exception {
    api.post(CONFIGS, params("dataId", "cas.json", "group", "G", "content", "{\"v\":1}"));

    HttpResponse<String> stale =
        api.post(
            CONFIGS,
            params("dataId", "cas.json", "group", "G", "content", "{\"v\":2}"),
            "casMd5",
            "0000");
    assertThat(stale.statusCode()).isEqualTo(409);
    assertThat(stale.body()).isEqualTo("false");
    assertThat(api.get(CONFIGS, params("dataId", "cas.json", "group", "G")).body())
        .isEqualTo("{\"v\":1}");

    HttpResponse<String> current =
        api.post(
            CONFIGS,
            params("dataId", "cas.json", "group", "G", "content", "{\"v\":2}"),
            "casMd5",
            ContentMd5.of("{\"v\":1}"));
    assertThat(current.body()).isEqualTo("true");
    assertThat(api.get(CONFIGS, params("dataId", "cas.json", "group", "G")).body())
        .isEqualTo("{\"v\":2}");
  }

  @Test
  void servesATaggedVersionToRequestsForItsTag() throws Exception {
    api.post(CONFIGS, params("dataId", "tagged.txt", "group", "G", "content", "base"));
    api.post(
        CONFIGS, params("dataId", "tagged.txt", "group", "G", "content", "gray", "tag", "canary"));

    assertThat(
            api.get(CONFIGS, params("dataId", "tagged.txt", "group", "G", "tag", "canary")).body())
        .isEqualTo("gray");
    assertThat(api.get(CONFIGS, params("dataId", "tagged.txt", "group", "G")).body())
        .isEqualTo("base");
    assertThat(
            api.get(CONFIGS, params("dataId", "tagged.txt", "group", "G", "tag", "nope"))
                .statusCode())
        .isEqualTo(404);

    api.delete(CONFIGS, params("dataId", "tagged.txt", "group", "G", "tag", "canary"));
    assertThat(
            api.get(CONFIGS, params("dataId", "tagged.txt", "group", "G", "tag", "canary"))
                .statusCode())
        .isEqualTo(404);
    assertThat(api.get(CONFIGS, params("dataId", "tagged.txt", "group", "G")).body())
        .isEqualTo("base");
  }

  @Test
  void showsAllTheDetailsOfAConfig() throws Exception {
    api.post(
        CONFIGS,
        params(
            "dataId",
            "detail.yaml",
            "group",
            "G",
            "tenant",
            "detail-ns",
            "content",
            "a: 1",
            "type",
            "yaml",
            "appName",
            "shop",
            "desc",
            "the shop",
            "config_tags",
            "x,y",
            "src_user",
            "alice"));

    JsonNode detail =
        json.readTree(
            api.get(
                    CONFIGS,
                    params(
                        "dataId",
                        "detail.yaml",
                        "group",
                        "G",
                        "tenant",
                        "detail-ns",
                        "show",
                        "all"))
                .body());
    assertThat(detail.get("id").isTextual()).isTrue();
    assertThat(detail.get("dataId").asText()).isEqualTo("detail.yaml");
    assertThat(detail.get("group").asText()).isEqualTo("G");
    assertThat(detail.get("tenant").asText()).isEqualTo("detail-ns");
    assertThat(detail.get("content").asText()).isEqualTo("a: 1");
    assertThat(detail.get("md5").asText()).isEqualTo(ContentMd5.of("a: 1"));
    assertThat(detail.get("type").asText()).isEqualTo("yaml");
    assertThat(detail.get("appName").asText()).isEqualTo("shop");
    assertThat(detail.get("desc").asText()).isEqualTo("the shop");
    assertThat(detail.get("configTags").asText()).isEqualTo("x,y");
    assertThat(detail.get("createUser").asText()).isEqualTo("alice");
    assertThat(detail.get("createTime").asLong()).isPositive();
    assertThat(detail.get("modifyTime").asLong()).isPositive();

    HttpResponse<String> missing =
        api.get(CONFIGS, params("dataId", "nope.yaml", "group", "G", "show", "all"));
    assertThat(missing.statusCode()).isEqualTo(200);
    assertThat(missing.body()).isEmpty();
  }

  @Test
  void searchesConfigsExactlyAndWithWildcards() throws Exception {
    for (String dataId : new String[] {"order-service.yaml", "order-worker.yaml", "user.yaml"}) {
      api.post(
          CONFIGS,
          params("dataId", dataId, "group", "SEARCH", "tenant", "search-ns", "content", dataId));
    }

    JsonNode blur =
        json.readTree(
            api.get(
                    CONFIGS,
                    params(
                        "search",
                        "blur",
                        "dataId",
                        "order*",
                        "group",
                        "",
                        "tenant",
                        "search-ns",
                        "pageNo",
                        "1",
                        "pageSize",
                        "1"))
                .body());
    assertThat(blur.get("totalCount").asInt()).isEqualTo(2);
    assertThat(blur.get("pageNumber").asInt()).isEqualTo(1);
    assertThat(blur.get("pagesAvailable").asInt()).isEqualTo(2);
    assertThat(blur.get("pageItems")).hasSize(1);
    assertThat(blur.get("pageItems").get(0).get("dataId").asText()).startsWith("order-");

    JsonNode accurate =
        json.readTree(
            api.get(
                    CONFIGS,
                    params(
                        "search",
                        "accurate",
                        "dataId",
                        "user.yaml",
                        "group",
                        "SEARCH",
                        "tenant",
                        "search-ns",
                        "pageNo",
                        "1",
                        "pageSize",
                        "10"))
                .body());
    assertThat(accurate.get("totalCount").asInt()).isEqualTo(1);
    assertThat(accurate.get("pageItems").get(0).get("content").asText()).isEqualTo("user.yaml");

    JsonNode everything =
        json.readTree(
            api.get(
                    CONFIGS,
                    params(
                        "search",
                        "accurate",
                        "dataId",
                        "",
                        "group",
                        "",
                        "tenant",
                        "search-ns",
                        "pageNo",
                        "1",
                        "pageSize",
                        "10"))
                .body());
    assertThat(everything.get("totalCount").asInt()).isEqualTo(3);
  }

  @Test
  void deletesConfigsByTheirIds() throws Exception {
    api.post(CONFIGS, params("dataId", "by-id-1", "group", "IDS", "content", "1"));
    api.post(CONFIGS, params("dataId", "by-id-2", "group", "IDS", "content", "2"));
    String id1 =
        json.readTree(
                api.get(CONFIGS, params("dataId", "by-id-1", "group", "IDS", "show", "all")).body())
            .get("id")
            .asText();
    String id2 =
        json.readTree(
                api.get(CONFIGS, params("dataId", "by-id-2", "group", "IDS", "show", "all")).body())
            .get("id")
            .asText();

    JsonNode deleted =
        json.readTree(api.delete(CONFIGS, params("delType", "ids", "ids", id1 + "," + id2)).body());
    assertThat(deleted.get("code").asInt()).isEqualTo(200);
    assertThat(deleted.get("data").asBoolean()).isTrue();
    assertThat(api.get(CONFIGS, params("dataId", "by-id-1", "group", "IDS")).statusCode())
        .isEqualTo(404);
    assertThat(api.get(CONFIGS, params("dataId", "by-id-2", "group", "IDS")).statusCode())
        .isEqualTo(404);
  }

  @Test
  void answersTheV2ApiInItsEnvelopeWithNacosErrorCodes() throws Exception {
    JsonNode published =
        json.readTree(
            api.post(
                    V2,
                    params(
                        "dataId",
                        "v2.txt",
                        "group",
                        "G",
                        "namespaceId",
                        "v2-ns",
                        "content",
                        "hello",
                        "configTags",
                        "a"))
                .body());
    assertThat(published.get("code").asInt()).isZero();
    assertThat(published.get("message").asText()).isEqualTo("success");
    assertThat(published.get("data").asBoolean()).isTrue();

    HttpResponse<String> read =
        api.get(V2, params("dataId", "v2.txt", "group", "G", "namespaceId", "v2-ns"));
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(json.readTree(read.body()).get("data").asText()).isEqualTo("hello");
    assertThat(read.headers().firstValue("Content-MD5")).hasValue(ContentMd5.of("hello"));
    assertThat(
            server.config().find(ConfigKey.of("v2-ns", "G", "v2.txt")).formal().meta().configTags())
        .isEqualTo("a");

    HttpResponse<String> missing = api.get(V2, params("dataId", "none.txt", "group", "G"));
    assertThat(missing.statusCode()).isEqualTo(404);
    JsonNode notFound = json.readTree(missing.body());
    assertThat(notFound.get("code").asInt()).isEqualTo(20004);
    assertThat(notFound.get("message").asText()).isEqualTo("resource not found");
    assertThat(notFound.get("data").asText()).isEqualTo("config data not exist");

    HttpResponse<String> noDataId = api.post(V2, params("group", "G", "content", "x"));
    assertThat(noDataId.statusCode()).isEqualTo(400);
    assertThat(json.readTree(noDataId.body()).get("code").asInt()).isEqualTo(10000);

    HttpResponse<String> badDataId =
        api.post(V2, params("dataId", "a b", "group", "G", "content", "x"));
    assertThat(badDataId.statusCode()).isEqualTo(400);
    assertThat(json.readTree(badDataId.body()).get("code").asInt()).isEqualTo(20002);

    JsonNode deleted =
        json.readTree(
            api.delete(V2, params("dataId", "v2.txt", "group", "G", "namespaceId", "v2-ns"))
                .body());
    assertThat(deleted.get("data").asBoolean()).isTrue();
    assertThat(
            api.get(V2, params("dataId", "v2.txt", "group", "G", "namespaceId", "v2-ns"))
                .statusCode())
        .isEqualTo(404);
  }

  @Test
  void refusesMalformedRequestsWithoutChangingAnythingAndKeepsServing() throws Exception {
    assertThat(api.postRaw(CONFIGS, "dataId=bad&group=G&content=%zz").statusCode()).isEqualTo(400);
    assertThat(api.postRaw(CONFIGS, "dataId=bad&group=G&content=%C3%28").statusCode())
        .isEqualTo(400);
    HttpResponse<String> noContent = api.post(CONFIGS, params("dataId", "bad", "group", "G"));
    assertThat(noContent.statusCode()).isEqualTo(400);
    assertThat(noContent.body()).contains("'content'");
    HttpResponse<String> badName =
        api.post(CONFIGS, params("dataId", "bad/name", "group", "G", "content", "x"));
    assertThat(badName.statusCode()).isEqualTo(400);
    assertThat(badName.body()).contains("invalid character");
    assertThat(api.get(CONFIGS, params("dataId", "bad")))
        .extracting(HttpResponse::statusCode)
        .isEqualTo(400);

    HttpResponse<String> tooLarge =
        api.post(
            CONFIGS,
            params("dataId", "bad", "group", "G", "content", "x".repeat((int) MAX_CONTENT + 1)));
    assertThat(tooLarge.statusCode()).isEqualTo(413);
    assertThat(tooLarge.body()).contains("limit");

    String hugeBody = "dataId=bad&group=G&content=" + "y".repeat((int) (MAX_CONTENT * 5));
    assertThat(api.postRaw(CONFIGS, hugeBody).statusCode()).isEqualTo(413);
    OpenApiClient http2 = new OpenApiClient(server.httpAddress(), HttpClient.Version.HTTP_2);
    assertThat(http2.postRaw(CONFIGS, hugeBody).statusCode()).isEqualTo(413);
    assertThat(http2.get(CONFIGS, params("dataId", "after-bad", "group", "G")).statusCode())
        .isEqualTo(404);

    HttpResponse<String> badPage =
        api.get(
            CONFIGS,
            params(
                "search", "accurate", "dataId", "", "group", "", "pageNo", "x", "pageSize", "10"));
    assertThat(badPage.statusCode()).isEqualTo(400);
    assertThat(
            api.get(
                    CONFIGS,
                    params(
                        "search",
                        "blur",
                        "dataId",
                        "",
                        "group",
                        "",
                        "pageNo",
                        "0",
                        "pageSize",
                        "10"))
                .statusCode())
        .isEqualTo(400);

    assertThat(server.config().find(ConfigKey.of("", "G", "bad"))).isNull();
    api.post(CONFIGS, params("dataId", "after-bad", "group", "G", "content", "still serving"));
    assertThat(api.get(CONFIGS, params("dataId", "after-bad", "group", "G")).body())
        .isEqualTo("still serving");
  }
}
