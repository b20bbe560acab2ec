package io.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.testing.FreePorts;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The smoke pass of the load driver against a server started in the test: every config scenario
 * runs for a second in both client modes and completes without a single error. No timing is
 * asserted; figures come from the full runs described in the README.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LoadDriverIT {
  @TempDir static Path dataDir;

  private SluiceServer server;

  @BeforeAll
  void startServer() throws IOException {
    server = FreePorts.startServer(ServerOptions.builder().dataDir(dataDir));
    assertThat(server.awaitReady(60, TimeUnit.SECONDS)).isTrue();
  }

  @AfterAll
  void stop() {
    server.close();
  }

  @Test
  void runsTheConfigScenariosWithTheLeanDriverWithoutErrors() {
    assertRunsCleanly("lean");
  }

  @Test
  void runsTheConfigScenariosWithTheOfficialClientWithoutErrors() {
    assertRunsCleanly("official");
  }

  @Test
  void drivesTheKeepAliveAloneWithTheLeanDriver() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int exit = smoke("lean", "health-check", out);
    List<JsonNode> results = results(out.toString(StandardCharsets.UTF_8));

    assertThat(exit).as("exit code").isZero();
    assertThat(results)
        .extracting(r -> r.path("scenario").asText() + " " + r.path("client").asText())
        .containsExactly("health-check lean", "health-check lean");
    for (JsonNode result : results) {
      assertThat(result.path("errors").asLong()).as(result.toString()).isZero();
      assertThat(result.path("ops").asLong()).as(result.toString()).isPositive();
    }
  }

  @Test
  void refusesTheKeepAliveWithTheOfficialClientBeforeConnecting() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        LoadDriver.execute(
            new String[] {
              "run",
              "--server",
              "127.0.0.1:" + server.httpPort(),
              "--client",
              "official",
              "--scenarios",
              "naming-register,health-check"
            },
            System.out,
            new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(exit).as("exit code").isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("health-check runs with --client lean only")
        .doesNotContain("Exception");
  }

  private void assertRunsCleanly(String client) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int exit = smoke(client, "config", out);
    String printed = out.toString(StandardCharsets.UTF_8);
    System.out.println(printed);

    List<JsonNode> results = results(printed);
    assertThat(exit).as("exit code").isZero();
    assertThat(results)
        .extracting(r -> r.path("scenario").asText() + " " + r.path("load").asText())
        .containsExactly(
            "config-query closed/8",
            "config-query open/200/s",
            "config-publish closed/8",
            "config-publish open/200/s",
            "config-listen listeners=20");
    // How many operations fit in 1 s depends on the machine (a cold official client on a busy
    // core may finish none in the first window): only errors and the figures' presence count.
    long ops = 0;
    for (JsonNode result : results) {
      assertThat(result.path("errors").asLong()).as(result.toString()).isZero();
      assertThat(result.path("serverRssMb").asDouble()).as(result.toString()).isPositive();
      ops += result.path("ops").asLong();
    }
    assertThat(ops).as("operations completed over all scenarios").isPositive();
    assertThat(results.get(4).path("publishErrors").asLong()).isZero();
  }

  /**
   * Runs {@code scenarios} in smoke mode, a second each, with the results printed to {@code out}.
   */
  private int smoke(String client, String scenarios, ByteArrayOutputStream out) {
    return LoadDriver.execute(
        new String[] {
          "run",
          "--server",
          "127.0.0.1:" + server.httpPort(),
          "--server-pid",
          Long.toString(ProcessHandle.current().pid()),
          "--client",
          client,
          "--scenarios",
          scenarios,
          "--smoke",
          // A second per scenario: enough for errors to show, which is all that is checked.
          "--duration",
          "1"
        },
        new PrintStream(out, true, StandardCharsets.UTF_8),
        System.err);
  }

  private static List<JsonNode> results(String printed) {
    ObjectMapper json = new ObjectMapper();
    List<JsonNode> results = new ArrayList<>();
    for (String line : printed.split("\n")) {
      if (line.startsWith("{")) {
        try {
          results.add(json.readTree(line));
        } catch (IOException e) {
          throw new AssertionError("not JSON: " + line, e);
        }
      }
    }
    return results;
  }
}
