package io.sluice.server.cluster;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.ClusterMember;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.FreePorts;
import io.sluice.server.testing.InlineReplicator;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A member that answers 200 with something that is not what was asked (a proxy's HTML page, a
 * truncated body) is named missing on every merged console answer, with the reason, and the rest is
 * answered: against a real node (in this JVM, its log applied inline, its cluster list naming
 * itself and the member) and a real HTTP server on loopback standing in for the member. It lists
 * one instance of the application when asked which it holds, so the node asks it for sums too, and
 * answers every other question with an HTML page.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GarbledMemberAnswerIT {
  private static final String APP = "garbled-shop";
  private static final String RESOURCE = "GET /orders";
  private static final String HTML = "<html><body>502 Bad Gateway</body></html>";

  private final ObjectMapper json = new ObjectMapper();
  private Vertx vertx;
  private HttpServer member;
  private String memberAddress;
  private SluiceServer node;
  private OpenApiClient http;

  @BeforeAll
  void start() throws Exception {
    // The second both the node's report and the member's instance have as their newest: the
    // series shows seconds up to the oldest newest second of the application's instances, so the
    // member must not claim an older one than the node's report (or the node's point is cut off).
    long reportSecond = System.currentTimeMillis() / 1000 - 1;
    vertx = Vertx.vertx();
    member =
        vertx
            .createHttpServer()
            .requestHandler(
                request -> {
                  boolean holders =
                      request.path().endsWith("/sluice/traffic/apps")
                          && APP.equals(request.getParam("app"));
                  request
                      .response()
                      .end(
                          holders
                              ? "{\"apps\":[{\"app\":\""
                                  + APP
                                  + "\",\"instances\":[{\"instance\":\"9@member\","
                                  + "\"lastReportMillis\":"
                                  + System.currentTimeMillis()
                                  + ",\"newestSecond\":"
                                  + reportSecond
                                  + ",\"resourcesSeen\":1,\"series\":1,\"droppedByAgent\":0}]}]}"
                              : HTML);
                })
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    memberAddress = "127.0.0.1:" + member.actualPort();
    Path data = Files.createTempDirectory(Path.of("target"), "garbled-member-it-");
    node =
        FreePorts.onHttpPort(
            port ->
                SluiceServer.start(
                    ServerOptions.builder()
                        .bindAddress("127.0.0.1")
                        .httpPort(port)
                        .dataDir(data.resolve(Integer.toString(port)))
                        .clusterMembers(
                            List.of(
                                new ClusterMember("127.0.0.1", port),
                                ClusterMember.parse(memberAddress)))
                        .build(),
                    (options, states) -> new InlineReplicator(states)));
    assertThat(node.awaitReady(30, TimeUnit.SECONDS)).isTrue();
    http = new OpenApiClient(node.httpAddress());
    long now = System.currentTimeMillis();
    String report =
        "{\"app\":\""
            + APP
            + "\",\"instance\":\"1@node\",\"sentAt\":"
            + now
            + ",\"seconds\":[{\"t\":"
            + reportSecond * 1000
            + ",\"resources\":[{\"name\":\""
            + RESOURCE
            + "\",\"pass\":5}]}]}";
    assertThat(http.post("/nacos/v1/sluice/traffic", params("report", report)).statusCode())
        .isEqualTo(200);
  }

  @AfterAll
  void stop() throws Exception {
    if (node != null) {
      node.close();
    }
    if (vertx != null) {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void everyMergedAnswerNamesTheMemberWhoseAnswerCouldNotBeReadAndGivesTheRest() throws Exception {
    JsonNode apps = answered("/nacos/v1/sluice/traffic/apps", params());
    assertThat(apps.path("apps").findValuesAsText("app")).containsExactly(APP);
    assertMemberMissing(apps);

    JsonNode resources = answered("/nacos/v1/sluice/traffic/resources", params("app", APP));
    assertThat(resources.path("resources").findValuesAsText("name")).containsExactly(RESOURCE);
    assertMemberMissing(resources);

    JsonNode series =
        answered("/nacos/v1/sluice/traffic/series", params("app", APP, "resource", RESOURCE));
    assertThat(series.path("seconds").findValuesAsText("pass")).isNotEmpty();
    assertMemberMissing(series);

    JsonNode subscribers =
        answered("/nacos/v1/ns/service/subscribers", params("serviceName", "garbled-svc"));
    assertThat(subscribers.path("count").asInt()).isZero();
    assertMemberMissing(subscribers);

    JsonNode listeners =
        answered("/nacos/v1/cs/configs/listener", params("dataId", "garbled.yaml", "group", "G"));
    assertThat(listeners.path("lisentersGroupkeyStatus").isObject()).isTrue();
    assertMemberMissing(listeners);
  }

  private JsonNode answered(String path, Map<String, String> query) throws Exception {
    HttpResponse<String> answer = http.get(path, query);
    assertThat(answer.statusCode()).as("%s: %s", path, answer.body()).isEqualTo(200);
    return json.readTree(answer.body());
  }

  private void assertMemberMissing(JsonNode answer) {
    assertThat(answer.path("missing").isArray()).as("%s", answer).isTrue();
    assertThat(answer.path("missing"))
        .as("%s", answer)
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.path("address").asText()).isEqualTo(memberAddress);
              assertThat(m.path("reason").asText()).startsWith("answered what could not be read: ");
            });
  }
}
