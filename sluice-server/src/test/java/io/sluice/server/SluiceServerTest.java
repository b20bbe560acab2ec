package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SluiceServerTest {
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void answersTheNacosProbesOnceStarted(@TempDir Path dataDir) throws Exception {
    try (SluiceServer server =
        SluiceServer.start(ServerOptions.builder().httpPort(0).dataDir(dataDir).build())) {
      assertThat(server.awaitReady(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      for (String probe : new String[] {"readiness", "liveness"}) {
        HttpResponse<String> response = get(server, "/nacos/v1/console/health/" + probe);

        assertThat(response.statusCode()).as(probe).isEqualTo(200);
        assertThat(response.body()).as(probe).isEqualTo("OK");
      }
    }
  }

  @Test
  void answersUnknownPathsWithNotFound(@TempDir Path dataDir) throws Exception {
    try (SluiceServer server =
        SluiceServer.start(ServerOptions.builder().httpPort(0).dataDir(dataDir).build())) {
      assertThat(get(server, "/nacos/v1/no/such/thing").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void createsTheDataDirectory(@TempDir Path parent) {
    Path dataDir = parent.resolve("nested/data");
    try (SluiceServer server =
        SluiceServer.start(ServerOptions.builder().httpPort(0).dataDir(dataDir).build())) {
      assertThat(dataDir).isDirectory();
    }
  }

  @Test
  void reportsWhyTheStoreCouldNotStartAndStaysUnready(@TempDir Path dataDir) throws Exception {
    // The store's directory is taken by a plain file: the store cannot open its log.
    java.nio.file.Files.writeString(dataDir.resolve("ratis"), "not a directory");
    try (SluiceServer server =
        SluiceServer.start(ServerOptions.builder().httpPort(0).dataDir(dataDir).build())) {
      assertThat(server.awaitReady(30, java.util.concurrent.TimeUnit.SECONDS)).isFalse();
      assertThat(server.startupFailure()).isNotNull();
      HttpResponse<String> readiness = get(server, "/nacos/v1/console/health/readiness");
      assertThat(readiness.statusCode()).isEqualTo(500);
      // Readiness says why, for the operator reading the probe.
      assertThat(readiness.body()).startsWith("the store failed to start");
      assertThat(get(server, "/nacos/v1/console/health/liveness").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aTakenHttpPortIsNamedInTheFailure(@TempDir Path dataDir) throws Exception {
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () ->
                  SluiceServer.start(
                      ServerOptions.builder().httpPort(port).grpcPort(0).dataDir(dataDir).build()))
          .hasMessageContaining("HTTP port 127.0.0.1:" + port);
    }
  }

  @Test
  void acceptsWritesAsSoonAsItSaysItIsReadyAfterARestart(@TempDir Path dataDir) throws Exception {
    ServerOptions options = ServerOptions.builder().httpPort(0).dataDir(dataDir).build();
    for (int start = 0; start < 5; start++) {
      try (SluiceServer server = SluiceServer.start(options)) {
        assertThat(server.awaitReady(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(server.isReady()).isTrue();
        Object outcome =
            server
                .config()
                .publish(
                    new io.sluice.server.config.ConfigPublish(
                        io.sluice.server.config.ConfigKey.of(
                            "", "DEFAULT_GROUP", "restart-" + start),
                        io.sluice.server.config.ConfigTarget.FORMAL,
                        null,
                        "v" + start,
                        io.sluice.server.config.ConfigMeta.NONE,
                        java.util.Set.of(),
                        null))
                .get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(outcome).isInstanceOf(io.sluice.server.config.ConfigOutcome.Published.class);
        for (int earlier = 0; earlier <= start; earlier++) {
          assertThat(
                  server
                      .config()
                      .find(
                          io.sluice.server.config.ConfigKey.of(
                              "", "DEFAULT_GROUP", "restart-" + earlier))
                      .formal()
                      .content())
              .isEqualTo("v" + earlier);
        }
      }
    }
  }

  private HttpResponse<String> get(SluiceServer server, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(server.httpAddress() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
