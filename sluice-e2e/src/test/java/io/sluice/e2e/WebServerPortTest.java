package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WebServerPortTest {
  @TempDir Path dir;

  @Test
  void readsThePortEachEmbeddedServerLogs() throws Exception {
    String[] lines = {
      "2026-12-01T17:00:00.000Z  INFO 1 --- [main] o.s.b.w.embedded.tomcat.TomcatWebServer  :"
          + " Tomcat started on port 41653 (http) with context path '/'",
      "INFO o.s.boot.tomcat.TomcatWebServer : Tomcat started on port 41653 (http) with context"
          + " path ''",
      "INFO o.s.b.w.e.jetty.JettyWebServer : Jetty started on port 41653 (http/1.1) with context"
          + " path '/'",
      "INFO o.s.b.w.e.undertow.UndertowWebServer : Undertow started on port 41653 (http)",
      "INFO o.s.b.web.embedded.netty.NettyWebServer : Netty started on port 41653 (http)",
      "INFO o.s.b.web.embedded.netty.NettyWebServer : Netty started on port 41653",
      "INFO Tomcat started on ports 41653 (http), 8443 (https) with context path '/'",
      "INFO Tomcat started on port(s): 41653 (http)",
      "Dubbo31App started on port 41653 (http)",
    };
    for (String line : lines) {
      Path output = dir.resolve("app-" + Math.abs(line.hashCode()) + ".out");
      Files.writeString(output, "starting\n" + line + "\nStarted App in 3.2 seconds\n");
      assertThat(WebServerPort.find(output, 0)).as(line).hasValue(41653);
    }
  }

  @Test
  void readsOnlyTheRunThatStartsAtTheOffset() throws Exception {
    Path output = dir.resolve("chain.out");
    Files.writeString(output, "Tomcat started on port 1111 (http) with context path '/'\n");
    long secondRun = Files.size(output);
    assertThat(WebServerPort.find(output, secondRun)).isEmpty();
    Files.writeString(
        output,
        "Tomcat started on port 2222 (http) with context path '/'\n",
        StandardOpenOption.APPEND);
    assertThat(WebServerPort.find(output, secondRun)).hasValue(2222);
  }

  @Test
  void doesNotReadALineStillBeingWrittenShort() throws Exception {
    Path output = dir.resolve("partial.out");
    Files.writeString(output, "Netty started on port 4165", StandardCharsets.UTF_8);
    assertThat(WebServerPort.find(output, 0)).isEqualTo(OptionalInt.empty());
    Files.writeString(output, "3 (http)\n", StandardOpenOption.APPEND);
    assertThat(WebServerPort.find(output, 0)).hasValue(41653);
  }

  @Test
  void failsWithTheOutputWhenTheApplicationExitsWithoutSayingItsPort() throws Exception {
    Path output = dir.resolve("failed.out");
    Process process =
        new ProcessBuilder("sh", "-c", "echo 'APPLICATION FAILED TO START'; exit 1")
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    assertThatThrownBy(() -> WebServerPort.await(process, output, 0, Duration.ofSeconds(30)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("exited with 1")
        .hasMessageContaining("APPLICATION FAILED TO START");
  }
}
