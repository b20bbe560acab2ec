package io.sluice.server.traffic.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.testing.FreePorts;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code POST /nacos/v1/sluice/traffic} on a real server: the body as sluice-agent's reporter sends
 * it (a form whose {@code report} value is the JSON with only its strings form-escaped), a body
 * form-encoded whole, one past the size read on the event loop, and one in the query string are all
 * taken; a bad one is answered 400 with its reason and stores nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TrafficReportRouteIT {
  private final ObjectMapper json = new ObjectMapper();
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private SluiceServer server;

  @BeforeAll
  void start() throws Exception {
    Path data = Files.createTempDirectory(Path.of("target"), "traffic-route-it-");
    server = FreePorts.startServer(ServerOptions.builder().dataDir(data));
    assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
  }

  @AfterAll
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static String report(String app, int resources) {
    long now = System.currentTimeMillis();
    StringBuilder json =
        new StringBuilder("{\"app\":\"")
            .append(app)
            .append("\",\"instance\":\"7@host\",\"sentAt\":")
            .append(now)
            .append(",\"dropped\":0,\"seconds\":[{\"t\":")
            .append(now / 1000 * 1000 - 1000)
            .append(",\"resources\":[");
    for (int r = 0; r < resources; r++) {
      json.append(r == 0 ? "" : ",")
          .append("{\"name\":\"GET+/r/")
          .append(r)
          .append("%26more\",\"pass\":3,\"block\":0,\"failed\":0,\"rt\":5,\"p50\":5,\"p99\":9,")
          .append("\"concurrency\":0}");
    }
    return json.append("]}]}").toString();
  }

  private HttpResponse<String> post(String query, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(
                URI.create(server.httpAddress() + "/nacos/v1/sluice/traffic" + query))
            .header("Content-Type", "application/x-www-form-urlencoded; charset=UTF-8")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The names of the resources the server lists for {@code app}. */
  private List<String> resourcesOf(String app) throws Exception {
    HttpResponse<String> answer =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(
                        server.httpAddress() + "/nacos/v1/sluice/traffic/resources?app=" + app))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return json.readTree(answer.body()).path("resources").findValuesAsText("name");
  }

  @Test
  void takesTheReportAsTheAgentSendsItAndAnswersOk() throws Exception {
    HttpResponse<String> answer = post("", "report=" + report("agent-format", 3));

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    assertThat(answer.body()).isEqualTo("ok");
    assertThat(resourcesOf("agent-format"))
        .containsExactly("GET /r/0&more", "GET /r/1&more", "GET /r/2&more");
  }

  @Test
  void takesAReportEncodedWholeOneLargerThanTheEventLoopReadsAndOneInTheQuery() throws Exception {
    String whole = URLDecoder.decode(report("encoded-whole", 2), StandardCharsets.UTF_8);
    assertThat(
            post("", "x=1&report=" + URLEncoder.encode(whole, StandardCharsets.UTF_8)).statusCode())
        .isEqualTo(200);
    assertThat(resourcesOf("encoded-whole")).hasSize(2);

    String large = report("large", 1_000);
    assertThat(large.length()).isGreaterThan(TrafficRoutes.INLINE_REPORT_BYTES);
    assertThat(post("", "report=" + large).statusCode()).isEqualTo(200);
    assertThat(resourcesOf("large")).hasSize(1_000);

    String inQuery = URLDecoder.decode(report("in-query", 1), StandardCharsets.UTF_8);
    assertThat(
            post("?report=" + URLEncoder.encode(inQuery, StandardCharsets.UTF_8), "").statusCode())
        .isEqualTo(200);
    assertThat(resourcesOf("in-query")).hasSize(1);
  }

  @Test
  void refusesABadReportWithItsReasonAndStoresNothing() throws Exception {
    String bad = report("refused", 2).replace("\"pass\":3", "\"pass\":-3");

    HttpResponse<String> answer = post("", "report=" + bad);

    assertThat(answer.statusCode()).isEqualTo(400);
    assertThat(answer.body()).contains("'pass' must be a non-negative integer");
    assertThat(resourcesOf("refused")).isEmpty();
    assertThat(post("", "other=1").statusCode()).isEqualTo(400);
  }
}
