package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.FreePorts;
import io.sluice.server.testing.GrpcTransportUnderTest;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
 * A client on another HTTP/2 and gRPC stack than the server's tests otherwise use: gRPC's C core
 * (Debian's {@code python3-grpcio}, the stack of the Python SDK and of every C-core language),
 * driven by {@code interop/nacos_grpc_core_client.py} through a connection's whole life — server
 * check, bi-stream setup and ability acknowledgement, subscribe, register, a push answered on the
 * stream, a query, and the instance dropped when the channel closes. Run against the transport
 * under test ({@link GrpcTransportUnderTest}), so both of the server's transports are checked
 * against a gRPC implementation they were not written beside.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcCoreClientIT {
  /** Debian's interpreter, which sees Debian's python3-grpcio (a pyenv one on PATH might not). */
  private static final Path PYTHON =
      Files.isExecutable(Path.of("/usr/bin/python3"))
          ? Path.of("/usr/bin/python3")
          : Path.of("python3");

  @TempDir static Path dataDir;
  @TempDir static Path scriptDir;

  private SluiceServer server;
  private OpenApiClient api;

  @BeforeAll
  void start() throws Exception {
    Process probe = new ProcessBuilder(PYTHON.toString(), "-c", "import grpc").start();
    String why = new String(probe.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(probe.waitFor())
        .as("this test needs Python with gRPC's C core: apt-get install python3-grpcio (%s)", why)
        .isZero();
    server =
        FreePorts.startServer(
            ServerOptions.builder()
                .dataDir(dataDir)
                .grpcTransport(GrpcTransportUnderTest.get())
                .ioTransport(GrpcTransportUnderTest.io()));
    assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
    api = new OpenApiClient("http://127.0.0.1:" + server.httpPort());
  }

  @AfterAll
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aGrpcCoreClientRegistersIsPushedAndIsDroppedWhenItsChannelCloses() throws Exception {
    Path script = scriptDir.resolve("nacos_grpc_core_client.py");
    try (InputStream in = getClass().getResourceAsStream("/interop/nacos_grpc_core_client.py")) {
      Files.copy(in, script);
    }
    Process client =
        new ProcessBuilder(
                PYTHON.toString(),
                script.toString(),
                "127.0.0.1",
                Integer.toString(server.grpcPort()),
                "core-orders",
                "127.0.0.9",
                "9090")
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try {
      BufferedReader lines =
          new BufferedReader(
              new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
      List<String> steps = new ArrayList<>();
      for (String line; steps.size() < 4 && (line = lines.readLine()) != null; ) {
        steps.add(line);
      }
      assertThat(steps).as("the client's steps (its reasons are on stderr)").hasSize(4);
      assertThat(steps.get(0)).startsWith("checked ").contains("_127.0.0.1_");
      assertThat(steps.subList(1, 4)).containsExactly("subscribed", "pushed", "registered");

      JsonNode hosts = api.hosts("core-orders");
      assertThat(hosts).hasSize(1);
      assertThat(hosts.get(0).path("ip").asText()).isEqualTo("127.0.0.9");
      assertThat(hosts.get(0).path("metadata").path("sdk").asText()).isEqualTo("grpc-core");

      client.getOutputStream().close();
      assertThat(client.waitFor(20, TimeUnit.SECONDS)).isTrue();
      assertThat(client.exitValue()).isZero();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!api.hosts("core-orders").isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(api.hosts("core-orders")).as("the closed channel's instance").isEmpty();
    } finally {
      client.destroyForcibly();
    }
  }
}
