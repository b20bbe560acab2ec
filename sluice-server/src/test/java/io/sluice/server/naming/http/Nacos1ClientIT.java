package io.sluice.server.naming.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.naming.Instance;
import io.sluice.server.naming.NamingService;
import io.sluice.server.naming.ServiceKey;
import io.sluice.server.testing.FreePorts;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Nacos 1.4 client (HTTP only: register, 5 s beats, queries, deregister) against a Sluice
 * server, in a child JVM whose class path the build copies to {@code target/nacos1}. Expiry after
 * silence is proven with a manual clock in {@code BeatMonitorTest}; here the client's own beats
 * keep its instance, and bring it back after the server forgot it.
 *
 * <p>Not in a {@code compat} package on purpose: the compatibility modules run those tests from
 * this module's test jar with other 2.x/3.x clients, and this one needs this module's build
 * directory.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Nacos1ClientIT {
  private static final ServiceKey LEGACY = ServiceKey.of("public", "DEFAULT_GROUP", "legacy");

  @TempDir static Path dataDir;

  private SluiceServer server;
  private Process client;
  private Writer commands;
  private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

  @BeforeAll
  void start() throws Exception {
    server = FreePorts.startServer(ServerOptions.builder().dataDir(dataDir));
    assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();

    Path jars = Path.of("target", "nacos1");
    assertThat(jars).as("the build copies the 1.x client to target/nacos1").isDirectory();
    try (var listing = Files.list(jars)) {
      assertThat(listing.filter(p -> p.getFileName().toString().startsWith("nacos-client-1.")))
          .isNotEmpty();
    }
    String classPath = jars.resolve("*") + File.pathSeparator + Path.of("target", "test-classes");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    client =
        new ProcessBuilder(
                java,
                "-cp",
                classPath,
                "-DJM.LOG.PATH=" + Path.of("target", "nacos1-logs").toAbsolutePath(),
                "-Dcom.alibaba.nacos.naming.log.level=warn",
                Nacos1ClientDriver.class.getName(),
                "127.0.0.1:" + server.httpPort())
            .redirectError(Path.of("target", "nacos1-client.err").toFile())
            .start();
    commands = new java.io.OutputStreamWriter(client.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                  if (line.startsWith("OK") || line.startsWith("ERROR") || line.equals("READY")) {
                    answers.add(line);
                  }
                }
              } catch (IOException e) {
                answers.add("ERROR " + e);
              }
            },
            "nacos1-client-output");
    reader.setDaemon(true);
    reader.start();
    assertThat(answers.poll(60, TimeUnit.SECONDS)).isEqualTo("READY");
  }

  @AfterAll
  void stop() throws Exception {
    if (client != null) {
      try {
        send("quit");
      } catch (Exception e) {
        // Going anyway.
      }
      if (!client.waitFor(10, TimeUnit.SECONDS)) {
        client.destroyForcibly();
      }
    }
    if (server != null) {
      server.close();
    }
  }

  private String send(String command) throws Exception {
    commands.write(command + "\n");
    commands.flush();
    String answer = answers.poll(30, TimeUnit.SECONDS);
    assertThat(answer).as(command).isNotNull().startsWith("OK");
    return answer;
  }

  private List<Instance> registered() {
    return server.naming().viewOrEmpty(LEGACY).instances();
  }

  @Test
  void registersBeatsComesBackAfterTheServerForgetsItAndDeregisters() throws Exception {
    send("register legacy 10.11.0.1 8080");

    assertThat(registered())
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.ip()).isEqualTo("10.11.0.1");
              assertThat(i.healthy()).isTrue();
              assertThat(i.ephemeral()).isTrue();
            });
    String owner = NamingService.heartbeatOwnerOf("10.11.0.1", 8080);
    assertThat(server.naming().publishedBy(owner, LEGACY)).hasSize(1);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(send("list legacy")).isEqualTo("OK 10.11.0.1:8080:true"));

    // As if it had expired: the next (light) beat gets 20404 and the client registers again.
    server.naming().removeOwner(owner);
    assertThat(registered()).isEmpty();
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(registered()).hasSize(1));

    send("deregister legacy 10.11.0.1 8080");
    assertThat(registered()).isEmpty();
  }
}
