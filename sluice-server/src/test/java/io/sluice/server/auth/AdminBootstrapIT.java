package io.sluice.server.auth;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin's first password, as an operator meets it: {@code sluice server --auth} without {@code
 * SLUICE_ADMIN_PASSWORD} prints a generated one once, at the first start only, and it survives a
 * restart (the user and the token key are replicated state, not per process).
 */
class AdminBootstrapIT {
  private static final String MARKER = "with the generated password: ";

  @Test
  void aGeneratedAdminPasswordIsPrintedOnceAndWorksAcrossRestarts(@TempDir Path dataDir)
      throws Exception {
    int port;
    String password;
    String tokenBeforeRestart;
    try (ServerProcess first =
        ServerProcess.startOnFreePorts(dataDir, List.of("--auth"), Map.of())) {
      port = first.httpPort();
      String line = first.awaitOutputContaining(MARKER, 60);
      password = line.substring(line.indexOf(MARKER) + MARKER.length()).split("\\s+")[0];
      assertThat(first.awaitOutput("sluice server ready", 5)).endsWith("auth on");
      OpenApiClient http = new OpenApiClient("http://127.0.0.1:" + port);
      assertThat(http.get("/nacos/v1/cs/configs", params("dataId", "a", "group", "g")).statusCode())
          .isEqualTo(401);
      var login =
          http.post(
              "/nacos/v1/auth/users/login", params("username", "nacos", "password", password));
      assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
      tokenBeforeRestart = login.body().replaceAll(".*\"accessToken\":\"([^\"]+)\".*", "$1");
      // The server's log file has the lines in JSON, but never the password.
      Path logFile = dataDir.resolve("logs").resolve("sluice-server.log");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> Files.exists(logFile) && Files.readString(logFile).contains("auth is on"));
      for (String logged : Files.readAllLines(logFile)) {
        assertThat(new ObjectMapper().readTree(logged).get("level").asText()).isNotBlank();
      }
      assertThat(Files.readString(logFile)).doesNotContain(password);
    }

    try (ServerProcess second = ServerProcess.start(port, dataDir, List.of("--auth"), Map.of())) {
      OpenApiClient http = new OpenApiClient("http://127.0.0.1:" + port);
      assertThat(
              http.post(
                      "/nacos/v1/auth/users/login",
                      params("username", "nacos", "password", password))
                  .statusCode())
          .isEqualTo(200);
      // The key is the installation's: a token issued before the restart still verifies.
      assertThat(
              http.get("/nacos/v1/auth/users", params("accessToken", tokenBeforeRestart))
                  .statusCode())
          .isEqualTo(200);
      assertThat(second.output()).noneMatch(line -> line.contains(MARKER));
    }
  }
}
