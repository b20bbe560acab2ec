package io.sluice.server.limits;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.FreePorts;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's bounds on what clients may make it hold, scaled down so a test reaches each: at a
 * bound the request gets a clear 503 naming the limit and everything else goes on being served.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ResourceLimitsIT {
  private static final long MAX_CONFIG_CHARS = 10_000;
  private static final long MAX_BUFFERED = 64 * 1024;
  private static final long MAX_METADATA_CHARS = 3_000;
  private static final int MAX_HTTP_CONNECTIONS = 8;

  @TempDir static Path dataDir;

  private SluiceServer server;
  private OpenApiClient http;

  @BeforeAll
  void start() {
    server =
        FreePorts.startServer(
            ServerOptions.builder()
                .dataDir(dataDir)
                .maxConfigBytes(MAX_CONFIG_CHARS)
                .maxInstanceMetadataBytes(MAX_METADATA_CHARS)
                .maxBufferedRequestBytes(MAX_BUFFERED)
                .maxHttpConnections(MAX_HTTP_CONNECTIONS)
                .httpIdleTimeout(Duration.ofSeconds(1))
                .httpHeaderTimeout(Duration.ofSeconds(2))
                .grpcHandshakeTimeout(Duration.ofSeconds(1)));
    assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
    http = new OpenApiClient(server.httpAddress());
  }

  @AfterAll
  void stop() {
    server.close();
  }

  private HttpResponse<String> publish(String dataId, String content) throws Exception {
    return http.post(
        "/nacos/v1/cs/configs",
        params("dataId", dataId, "group", "DEFAULT_GROUP", "content", content));
  }

  @Test
  void configsStopGrowingAtTheirTotalCapAndShrinkingStillWorks() throws Exception {
    assertThat(publish("cap-a", "a".repeat(6_000)).statusCode()).isEqualTo(200);

    HttpResponse<String> refused = publish("cap-b", "b".repeat(6_000));

    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.body()).contains("max-config-bytes");
    assertThat(
            http.get("/nacos/v1/cs/configs", params("dataId", "cap-b", "group", "DEFAULT_GROUP"))
                .statusCode())
        .isEqualTo(404);
    // Shrinking or removing is always allowed, and makes room again.
    assertThat(publish("cap-a", "a".repeat(1_000)).statusCode()).isEqualTo(200);
    assertThat(publish("cap-b", "b".repeat(6_000)).statusCode()).isEqualTo(200);
    http.delete("/nacos/v1/cs/configs", params("dataId", "cap-a", "group", "DEFAULT_GROUP"));
    http.delete("/nacos/v1/cs/configs", params("dataId", "cap-b", "group", "DEFAULT_GROUP"));
  }

  private HttpResponse<String> register(String service, int port, String method) throws Exception {
    return register(service, port, method, true);
  }

  private HttpResponse<String> register(String service, int port, String method, boolean ephemeral)
      throws Exception {
    var params =
        params(
            "ephemeral",
            String.valueOf(ephemeral),
            "serviceName",
            service,
            "ip",
            "127.0.0.1",
            "port",
            String.valueOf(port),
            "metadata",
            "{\"blob\":\"" + "m".repeat(2_000) + "\"}");
    return method.equals("POST")
        ? http.post("/nacos/v1/ns/instance", params)
        : http.delete("/nacos/v1/ns/instance", params);
  }

  @Test
  void persistentInstanceMetadataStopsGrowingAtItsOwnTotalCap() throws Exception {
    assertThat(register("persistent-a", 7101, "POST", false).statusCode()).isEqualTo(200);

    HttpResponse<String> refused = register("persistent-b", 7102, "POST", false);

    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.body())
        .contains("persistent instance metadata is full")
        .contains("max-instance-metadata-bytes");
    assertThat(http.get("/nacos/v1/ns/instance/list", params("serviceName", "persistent-b")).body())
        .as("nothing registered")
        .doesNotContain("7102");
    assertThat(register("persistent-a", 7101, "DELETE", false).statusCode()).isEqualTo(200);
    assertThat(register("persistent-b", 7102, "POST", false).statusCode()).isEqualTo(200);
    assertThat(register("persistent-b", 7102, "DELETE", false).statusCode()).isEqualTo(200);
  }

  @Test
  void instanceMetadataStopsGrowingAtItsTotalCapAndDeregisteringMakesRoom() throws Exception {
    assertThat(register("meta-a", 7001, "POST").statusCode()).isEqualTo(200);

    HttpResponse<String> refused = register("meta-b", 7002, "POST");

    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.body()).contains("max-instance-metadata-bytes");
    assertThat(register("meta-a", 7001, "DELETE").statusCode()).isEqualTo(200);
    assertThat(register("meta-b", 7002, "POST").statusCode()).isEqualTo(200);
    assertThat(register("meta-b", 7002, "DELETE").statusCode()).isEqualTo(200);
  }

  @Test
  void slowBodiesHeldAtOnceMeetTheBufferedBytesCap() throws Exception {
    int port = server.httpPort();
    try (Socket slow = new Socket("127.0.0.1", port)) {
      // A form body declared large, sent in part and then held: its bytes stay buffered.
      OutputStream out = slow.getOutputStream();
      out.write(
          ("POST /nacos/v1/cs/configs HTTP/1.1\r\nHost: x\r\n"
                  + "Content-Type: application/x-www-form-urlencoded\r\n"
                  + "Content-Length: 1000000\r\n\r\ndataId=slow&group=g&content=")
              .getBytes(StandardCharsets.US_ASCII));
      out.write("s".repeat(60_000).getBytes(StandardCharsets.US_ASCII));
      out.flush();

      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                HttpResponse<String> refused = publish("while-held", "x".repeat(20_000));
                assertThat(refused.statusCode()).isEqualTo(503);
                assertThat(refused.body()).contains("max-buffered-request-bytes");
              });
      // Small requests are still served.
      assertThat(http.get("/nacos/v1/console/health/readiness", params()).statusCode())
          .isEqualTo(200);
    }
    // Once the held body is gone, its bytes are free again.
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> assertThat(publish("after-held", "x".repeat(5_000)).statusCode()).isEqualTo(200));
    http.delete("/nacos/v1/cs/configs", params("dataId", "after-held", "group", "DEFAULT_GROUP"));
  }

  @Test
  void connectionsBeyondTheCapAreAnswered503AndClosed() throws Exception {
    List<Socket> held = new ArrayList<>();
    try {
      // Each held connection sends a request's headers and never its body (a silent socket is
      // bounded by the idle timeout instead: the port counts a connection from its first request).
      for (int i = 0; i < MAX_HTTP_CONNECTIONS + 2; i++) {
        Socket socket = new Socket("127.0.0.1", server.httpPort());
        socket
            .getOutputStream()
            .write(
                "POST /nacos/v1/cs/configs HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        held.add(socket);
      }
      // The held connections are counted as the event loops get to them.
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                try (Socket last = new Socket("127.0.0.1", server.httpPort())) {
                  last.setSoTimeout(10_000);
                  last.getOutputStream()
                      .write(
                          "GET /nacos/v1/console/health/liveness HTTP/1.1\r\nHost: x\r\n\r\n"
                              .getBytes(StandardCharsets.US_ASCII));
                  String answer =
                      new String(last.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                  assertThat(answer).startsWith("HTTP/1.1 503").contains("max-http-connections");
                }
              });
    } finally {
      for (Socket socket : held) {
        socket.close();
      }
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(http.get("/nacos/v1/console/health/liveness", params()).statusCode())
                    .isEqualTo(200));
  }

  @Test
  void silentHttpConnectionsAreClosedAfterTheIdleTimeout() throws Exception {
    try (Socket silent = new Socket("127.0.0.1", server.httpPort())) {
      silent.setSoTimeout(30_000);
      long start = System.nanoTime();
      assertThat(silent.getInputStream().read()).isEqualTo(-1);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(25));
    }
  }

  @Test
  void aClientTricklingItsHeadersIsCutOffAtTheHeaderTimeout() throws Exception {
    try (Socket slow = new Socket("127.0.0.1", server.httpPort())) {
      slow.setSoTimeout(90_000);
      OutputStream out = slow.getOutputStream();
      // A header line every 300 ms: never silent for the 1 s idle timeout, never complete.
      Thread trickle =
          new Thread(
              () -> {
                try {
                  out.write(
                      "GET /nacos/v1/console/health/liveness HTTP/1.1\r\nHost: x\r\n"
                          .getBytes(StandardCharsets.US_ASCII));
                  for (int i = 0; i < 200; i++) {
                    Thread.sleep(300);
                    out.write(("X-Slow-" + i + ": 1\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                  }
                } catch (Exception e) {
                  // closed by the server: what the test waits for
                }
              },
              "trickle");
      trickle.setDaemon(true);
      long start = System.nanoTime();
      trickle.start();

      assertThat(slow.getInputStream().read()).as("closed without an answer").isEqualTo(-1);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(25));
      trickle.interrupt();
    }
    assertThat(http.get("/nacos/v1/console/health/liveness", params()).statusCode())
        .as("others are served")
        .isEqualTo(200);
  }

  @Test
  void aGrpcSocketThatNeverHandshakesIsClosed() throws Exception {
    try (Socket silent = new Socket("127.0.0.1", server.grpcPort())) {
      silent.setSoTimeout(30_000);
      InputStream in = silent.getInputStream();
      long start = System.nanoTime();
      // The server may send its own preface first; the socket must then end.
      while (in.read() != -1) {
        // drain
      }
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(25));
    }
  }
}
