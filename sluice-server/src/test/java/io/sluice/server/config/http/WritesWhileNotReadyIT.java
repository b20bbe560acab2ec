package io.sluice.server.config.http;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.replication.Replicator;
import io.sluice.server.replication.ReplicatorNotReadyException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** While the store cannot take writes, HTTP writes answer 503 and reads still answer. */
class WritesWhileNotReadyIT {
  /** A store stuck in its start: never ready, refusing every write as Ratis does meanwhile. */
  static final class NeverReady implements Replicator {
    @Override
    public CompletableFuture<Object> submit(String stateName, byte[] command) {
      return CompletableFuture.failedFuture(
          new ReplicatorNotReadyException(
              "replicator is still starting (log replay and election)"));
    }

    @Override
    public boolean isReady() {
      return false;
    }

    @Override
    public CompletableFuture<Void> ready() {
      return new CompletableFuture<>();
    }
  }

  @Test
  void answersWritesWithServiceUnavailableAndStillServesReads(@TempDir Path dataDir)
      throws Exception {
    try (SluiceServer server =
        SluiceServer.start(
            ServerOptions.builder().httpPort(0).dataDir(dataDir).build(),
            (options, states) -> new NeverReady())) {
      OpenApiClient api = new OpenApiClient(server.httpAddress());
      ObjectMapper json = new ObjectMapper();

      var v1 =
          api.post("/nacos/v1/cs/configs", params("dataId", "a", "group", "G", "content", "x"));
      assertThat(v1.statusCode()).isEqualTo(503);
      assertThat(v1.body()).contains("starting");
      var v2 = api.post("/nacos/v2/cs/config", params("dataId", "a", "group", "G", "content", "x"));
      assertThat(v2.statusCode()).isEqualTo(503);
      assertThat(json.readTree(v2.body()).get("code").asInt()).isEqualTo(30000);
      assertThat(
              api.delete("/nacos/v1/cs/configs", params("dataId", "a", "group", "G")).statusCode())
          .isEqualTo(503);
      assertThat(
              api.post(
                      "/nacos/v1/console/namespaces",
                      params("customNamespaceId", "dev", "namespaceName", "Dev"))
                  .statusCode())
          .isEqualTo(503);
      assertThat(
              api.post(
                      "/nacos/v2/console/namespace",
                      params("namespaceId", "dev", "namespaceName", "Dev"))
                  .statusCode())
          .isEqualTo(503);

      assertThat(api.get("/nacos/v1/cs/configs", params("dataId", "a", "group", "G")).statusCode())
          .isEqualTo(404);
      assertThat(api.get("/nacos/v1/console/namespaces", params()).statusCode()).isEqualTo(200);
      assertThat(api.get("/nacos/v1/console/health/readiness", params()).statusCode())
          .isEqualTo(500);
    }
  }
}
