package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The agent's config client against sluice-server with auth on: a Spring Boot application under the
 * agent, given a user name and password, logs in, reads its rules and follows their changes; given
 * a wrong password it is refused, says so in its log, and the application runs ungoverned.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AgentAuthIT {
  private static final String ADMIN_PASSWORD = "admin-secret-1";
  private static final String APP = "e2e-agent-auth";
  private static final Path DIR = GovernedAppScenarios.WORK_DIR.resolve(APP);

  private final HttpClient http = HttpClient.newHttpClient();
  private SluiceServer server;
  private String adminToken;

  @BeforeAll
  void startServerWithAuth() throws Exception {
    GovernedAppScenarios.deleteRecursively(DIR);
    Files.createDirectories(DIR);
    server =
        SluiceServer.start(
            ServerOptions.builder()
                .httpPort(0)
                .dataDir(DIR.resolve("server-data"))
                .authMode(ServerOptions.AuthMode.ON)
                .initialAdminPassword(ADMIN_PASSWORD)
                .build());
    assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
    HttpResponse<String> login =
        post("/nacos/v1/auth/users/login", "username=nacos&password=" + ADMIN_PASSWORD);
    Matcher token = Pattern.compile("\"accessToken\":\"([^\"]+)\"").matcher(login.body());
    assertThat(token.find()).as(login.body()).isTrue();
    adminToken = token.group(1);
  }

  @AfterAll
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void theAgentLogsInWithItsUserAndPasswordAndFollowsTheRules() throws Exception {
    String name = APP + "-right";
    publishRules(name, "[{\"resource\":\"GET /orders/{id}\",\"count\":3}]");
    try (AppProcess app = startApp(name, "username=nacos,password=" + ADMIN_PASSWORD)) {
      await().atMost(GovernedAppScenarios.RULE_DEADLINE).until(() -> burst(app, 10) > 0);
      // Its traffic reports log in with the same credentials and are taken.
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> trafficApps().contains("\"app\":\"" + name + "\""));

      publishRules(name, "[]");
      await().atMost(GovernedAppScenarios.RULE_DEADLINE).until(() -> burst(app, 10) == 0);
      assertThat(agentLog(name))
          .doesNotContain("refuses the agent")
          // A first report may time out on a loaded machine (it waits for the login's password
          // hash); a refusal would say so with its status.
          .doesNotContain("answered 401")
          .doesNotContain("answered 403")
          .doesNotContain(ADMIN_PASSWORD);
    }
  }

  @Test
  void aWrongPasswordIsRefusedClearlyAndTheApplicationRunsUngoverned() throws Exception {
    String name = APP + "-wrong";
    publishRules(name, "[{\"resource\":\"GET /orders/{id}\",\"count\":1}]");
    try (AppProcess app = startApp(name, "username=nacos,password=not-the-password")) {
      await()
          .atMost(GovernedAppScenarios.RULE_DEADLINE)
          .until(() -> agentLog(name).contains("refuses the agent"));
      assertThat(agentLog(name))
          .contains("answered 401")
          .contains("user 'nacos'")
          .doesNotContain("not-the-password");
      assertThat(burst(app, 10)).as("no rules reached the agent").isZero();
    }
  }

  private AppProcess startApp(String name, String credentials) throws Exception {
    return AppProcess.start(
        Path.of(System.getProperty("java.home")),
        Path.of(System.getProperty("sluice.e2e.boot3Jar")),
        GovernedAppScenarios.AGENT_JAR,
        "server.addr=127.0.0.1:"
            + server.httpPort()
            + ","
            + credentials
            + ",log.dir="
            + DIR.resolve(name).toAbsolutePath()
            + ",cache.dir="
            + DIR.resolve(name).resolve("rule-cache").toAbsolutePath(),
        name,
        DIR.resolve(name));
  }

  /** How many of {@code n} quick requests the application refused 429. */
  private static int burst(AppProcess app, int n) throws Exception {
    int refused = 0;
    for (int i = 0; i < n; i++) {
      if (app.get("/orders/" + i).statusCode() == 429) {
        refused++;
      }
    }
    return refused;
  }

  private void publishRules(String app, String rules) throws Exception {
    HttpResponse<String> reply =
        post(
            "/nacos/v1/cs/configs?accessToken=" + encode(adminToken),
            "dataId="
                + encode(app + "-flow-rules")
                + "&group=SENTINEL_GROUP&type=json&content="
                + encode(rules));
    assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);
  }

  /** The applications whose traffic reports the server took, as the console reads them. */
  private String trafficApps() throws Exception {
    HttpResponse<String> reply =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(
                        "http://127.0.0.1:"
                            + server.httpPort()
                            + "/nacos/v1/sluice/traffic/apps?accessToken="
                            + encode(adminToken)))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);
    return reply.body();
  }

  private HttpResponse<String> post(String path, String form) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String agentLog(String name) throws Exception {
    try (Stream<Path> files = Files.list(DIR.resolve(name))) {
      StringBuilder all = new StringBuilder();
      for (Path file :
          files.filter(f -> f.getFileName().toString().startsWith("sluice-agent-")).toList()) {
        all.append(Files.readString(file));
      }
      return all.toString();
    }
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
