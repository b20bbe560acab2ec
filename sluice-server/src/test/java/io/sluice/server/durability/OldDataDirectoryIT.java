package io.sluice.server.durability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.protocol.http.OpenApiClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opens data directories written by earlier versions of the server, committed under {@code
 * src/test/resources/data-directories}, and checks that every acknowledged write in them is served
 * as it was written. A change to a durable format (a command, a snapshot section, a history record)
 * that cannot read what came before fails here. The evolution rule is in docs/architecture.md.
 *
 * <p>{@code format-1} was written by {@link DataDirectoryFixtureWriter} with the code of commit
 * 5b7dc7e, before formats carried versions: a snapshot of every state taken on a clean stop, then
 * commands left in the Raft log by a SIGKILL (replayed at start), and history segments.
 */
class OldDataDirectoryIT {
  private static final String CONFIGS = "/nacos/v1/cs/configs";
  private static final String HISTORY = "/nacos/v1/cs/history";

  private final ObjectMapper json = new ObjectMapper();

  @TempDir Path work;

  @Test
  void servesEveryWriteOfAFormatOneDataDirectoryAndKeepsWritingToIt() throws Exception {
    Path dataDir = copyOf("format-1");
    try (SluiceServer server = start(dataDir)) {
      OpenApiClient api = new OpenApiClient(server.httpAddress());
      checkFormatOneWrites(api);
      // New writes go on top of the old ones, in whatever format this version writes.
      ok(
          api.post(
              CONFIGS,
              OpenApiClient.params(
                  "dataId", "app.properties", "group", "DEFAULT_GROUP", "content", "a=4")));
    }
    // Reopened: a snapshot of this version's format plus the old log.
    try (SluiceServer server = start(dataDir)) {
      OpenApiClient api = new OpenApiClient(server.httpAddress());
      assertThat(read(api, "app.properties", "DEFAULT_GROUP").body()).isEqualTo("a=4");
      JsonNode history = history(api, "app.properties", "DEFAULT_GROUP");
      assertThat(history.get("totalCount").asInt()).isEqualTo(4);
      assertThat(history.get("pageItems").get(0).get("opType").asText()).isEqualTo("U");
      assertThat(history.get("pageItems").get(0).get("id").asLong())
          .isGreaterThan(history.get("pageItems").get(1).get("id").asLong());
      checkNamespaces(api);
      checkServices(api);
    }
  }

  private void checkFormatOneWrites(OpenApiClient api) throws Exception {
    checkNamespaces(api);
    checkConfigs(api);
    checkHistory(api);
    checkServices(api);
  }

  private void checkNamespaces(OpenApiClient api) throws Exception {
    JsonNode list =
        json.readTree(ok(api.get("/nacos/v1/console/namespaces", OpenApiClient.params())).body())
            .get("data");
    List<String> described = new ArrayList<>();
    for (JsonNode namespace : list) {
      described.add(
          namespace.get("namespace").asText()
              + "|"
              + namespace.get("namespaceShowName").asText()
              + "|"
              + namespace.get("namespaceDesc").asText());
    }
    assertThat(described)
        .containsExactly(
            "|public|null",
            "fixture-ns|Fixture|written by format 1",
            "renamed-ns|After|renamed",
            "late-ns|Late|null");
  }

  private void checkConfigs(OpenApiClient api) throws Exception {
    HttpResponse<String> app = read(api, "app.properties", "DEFAULT_GROUP");
    assertThat(app.body()).isEqualTo("a=3");
    assertThat(app.headers().firstValue("Config-Type")).hasValue("properties");
    assertThat(app.headers().firstValue("Content-MD5")).hasValue(md5("a=3"));
    JsonNode detail =
        json.readTree(
            ok(api.get(
                    CONFIGS,
                    OpenApiClient.params(
                        "dataId", "app.properties", "group", "DEFAULT_GROUP", "show", "all")))
                .body());
    assertThat(detail.get("appName").asText()).isEqualTo("fixture-app");
    assertThat(detail.get("createUser").asText()).isEqualTo("carol");
    assertThat(detail.get("createTime").asLong()).isLessThan(detail.get("modifyTime").asLong());

    HttpResponse<String> yaml =
        ok(
            api.get(
                CONFIGS,
                OpenApiClient.params("dataId", "ns.yaml", "group", "G", "tenant", "fixture-ns")));
    assertThat(yaml.body()).isEqualTo("k: v\n");
    assertThat(yaml.headers().firstValue("Config-Type")).hasValue("yaml");

    assertThat(read(api, "beta.txt", "G").body()).isEqualTo("formal");
    HttpResponse<String> beta =
        ok(
            api.get(
                CONFIGS,
                OpenApiClient.params("dataId", "beta.txt", "group", "G"),
                "X-Forwarded-For",
                "10.0.0.2"));
    assertThat(beta.body()).isEqualTo("beta");
    assertThat(beta.headers().firstValue("isBeta")).hasValue("true");
    JsonNode betaInfo =
        json.readTree(
            ok(api.get(
                    CONFIGS,
                    OpenApiClient.params("dataId", "beta.txt", "group", "G", "beta", "true")))
                .body());
    assertThat(betaInfo.get("data").get("betaIps").asText()).isEqualTo("10.0.0.1,10.0.0.2");

    assertThat(read(api, "tagged.txt", "G").body()).isEqualTo("untagged");
    assertThat(
            api.get(
                    CONFIGS,
                    OpenApiClient.params("dataId", "tagged.txt", "group", "G", "tag", "canary"))
                .statusCode())
        .as("the tag removed after the snapshot stays removed")
        .isEqualTo(404);
    assertThat(
            api.get(CONFIGS, OpenApiClient.params("dataId", "removed.txt", "group", "G"))
                .statusCode())
        .isEqualTo(404);

    String unicode = "h\u00e9llo \u2713 \ud83d\ude80";
    HttpResponse<String> text = read(api, "unicode.txt", "G");
    assertThat(text.body()).isEqualTo(unicode);
    assertThat(text.headers().firstValue("Content-MD5")).hasValue(md5(unicode));

    HttpResponse<String> late = read(api, "late.json", "G");
    assertThat(late.body()).isEqualTo("{\"late\":true}");
    assertThat(late.headers().firstValue("Config-Type")).hasValue("json");
  }

  private void checkHistory(OpenApiClient api) throws Exception {
    JsonNode app = history(api, "app.properties", "DEFAULT_GROUP");
    assertThat(app.get("totalCount").asInt()).isEqualTo(3);
    List<String> entries = new ArrayList<>();
    for (JsonNode item : app.get("pageItems")) {
      JsonNode entry =
          json.readTree(
              ok(api.get(
                      HISTORY,
                      OpenApiClient.params(
                          "dataId",
                          "app.properties",
                          "group",
                          "DEFAULT_GROUP",
                          "nid",
                          item.get("id").asText())))
                  .body());
      entries.add(
          entry.get("opType").asText()
              + "|"
              + entry.get("srcUser").asText()
              + "|"
              + entry.get("content").asText()
              + "|"
              + entry.get("appName").asText()
              + "|"
              + entry.get("publishType").asText());
    }
    // Newest first; the newest was replayed from the log, the others read from history on disk.
    assertThat(entries)
        .containsExactly(
            "U|carol|a=3|fixture-app|formal",
            "U|bob|a=2|fixture-app|formal",
            "I|alice|a=1|fixture-app|formal");

    JsonNode removed = history(api, "removed.txt", "G");
    List<String> ops = new ArrayList<>();
    for (JsonNode item : removed.get("pageItems")) {
      ops.add(item.get("opType").asText());
    }
    assertThat(ops).containsExactly("D", "I");

    JsonNode tagged = history(api, "tagged.txt", "G");
    List<String> tagOps = new ArrayList<>();
    for (JsonNode item : tagged.get("pageItems")) {
      tagOps.add(item.get("opType").asText() + "|" + item.get("publishType").asText());
    }
    assertThat(tagOps).containsExactly("D|tag", "I|tag", "I|formal");
  }

  private void checkServices(OpenApiClient api) throws Exception {
    JsonNode service =
        json.readTree(
            ok(api.get(
                    "/nacos/v1/ns/service",
                    OpenApiClient.params("serviceName", "fixture-svc", "groupName", "G")))
                .body());
    assertThat(service.get("protectThreshold").asDouble()).isEqualTo(0.5);
    assertThat(service.get("metadata").get("owner").asText()).isEqualTo("team-a");
    assertThat(service.get("selector").get("type").asText()).isEqualTo("label");

    JsonNode instances =
        json.readTree(
            ok(api.get(
                    "/nacos/v1/ns/instance/list",
                    OpenApiClient.params("serviceName", "G@@fixture-svc")))
                .body());
    List<String> hosts = new ArrayList<>();
    for (JsonNode host : instances.get("hosts")) {
      hosts.add(
          host.get("ip").asText()
              + ":"
              + host.get("port").asInt()
              + "|"
              + host.get("clusterName").asText()
              + "|"
              + host.get("weight").asDouble()
              + "|"
              + host.get("ephemeral").asBoolean()
              + "|"
              + host.get("metadata"));
    }
    assertThat(hosts)
        .containsExactlyInAnyOrder(
            "127.0.0.7:9001|c1|2.0|false|{\"zone\":\"a\"}", "127.0.0.8:9002|DEFAULT|1.0|false|{}");

    JsonNode namespaced =
        json.readTree(
            ok(api.get(
                    "/nacos/v1/ns/service",
                    OpenApiClient.params("serviceName", "ns-svc", "namespaceId", "fixture-ns")))
                .body());
    assertThat(namespaced.get("protectThreshold").asDouble()).isEqualTo(0.25);
    assertThat(namespaced.get("metadata").get("late").asText()).isEqualTo("yes");

    assertThat(
            api.get("/nacos/v1/ns/service", OpenApiClient.params("serviceName", "gone-svc"))
                .statusCode())
        .isEqualTo(400);
  }

  private static HttpResponse<String> read(OpenApiClient api, String dataId, String group)
      throws Exception {
    return ok(api.get(CONFIGS, OpenApiClient.params("dataId", dataId, "group", group)));
  }

  private JsonNode history(OpenApiClient api, String dataId, String group) throws Exception {
    return json.readTree(
        ok(api.get(
                HISTORY,
                OpenApiClient.params(
                    "search", "accurate", "dataId", dataId, "group", group, "pageSize", "50")))
            .body());
  }

  private static HttpResponse<String> ok(HttpResponse<String> response) {
    assertThat(response.statusCode())
        .as("%s %s: %s", response.request().method(), response.request().uri(), response.body())
        .isEqualTo(200);
    return response;
  }

  private static String md5(String content) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("MD5").digest(content.getBytes(StandardCharsets.UTF_8)));
  }

  private static SluiceServer start(Path dataDir) {
    SluiceServer server =
        SluiceServer.start(ServerOptions.builder().httpPort(0).dataDir(dataDir).build());
    assertThat(server.awaitReady(60, TimeUnit.SECONDS))
        .as("the store opens: %s", server.startupFailure())
        .isTrue();
    return server;
  }

  /** A writable copy of a committed data directory. */
  private Path copyOf(String name) throws IOException, URISyntaxException {
    Path source =
        Path.of(OldDataDirectoryIT.class.getResource("/data-directories/" + name).toURI());
    Path target = work.resolve(name);
    try (Stream<Path> files = Files.walk(source)) {
      files.forEach(
          file -> {
            try {
              Files.copy(file, target.resolve(source.relativize(file).toString()));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    }
    return target;
  }
}
