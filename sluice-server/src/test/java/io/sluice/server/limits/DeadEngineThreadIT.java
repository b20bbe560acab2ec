package io.sluice.server.limits;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.EngineThreads;
import io.sluice.server.testing.FreePorts;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Ratis thread that dies under a running server, as one does on an OutOfMemoryError: readiness
 * reports it at once (instead of OK while every write hangs), writes are refused with the reason,
 * and the store restarts itself in-process with every acknowledged write.
 *
 * <p>The leader's event processor (which advances the commit index) is killed with {@code
 * Thread.stop()} ({@link EngineThreads}), which throws an asynchronous error into it wherever it
 * is, as an allocation failure would; skipped on a JDK without it (Java 20 and later).
 */
class DeadEngineThreadIT {
  private static final String READINESS = "/nacos/v1/console/health/readiness";

  @TempDir Path dataDir;

  @Test
  void aDeadLeaderThreadFailsReadinessAndTheStoreRestartsItselfWithItsWrites() throws Exception {
    try (SluiceServer server = FreePorts.startServer(ServerOptions.builder().dataDir(dataDir))) {
      assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
      OpenApiClient http = new OpenApiClient(server.httpAddress());
      assertThat(http.publishConfig("before", "kept").statusCode()).isEqualTo(200);

      EngineThreads.kill(EngineThreads.live("LeaderStateImpl"));

      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(10))
          .untilAsserted(
              () -> {
                HttpResponse<String> readiness = http.get(READINESS, params());
                assertThat(readiness.statusCode()).isEqualTo(500);
                assertThat(readiness.body()).contains("LeaderStateImpl").contains("died");
              });

      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () -> assertThat(http.publishConfig("after", "back").statusCode()).isEqualTo(200));
      assertThat(http.get(READINESS, params()).statusCode()).isEqualTo(200);
      assertThat(http.getConfig("before").body()).isEqualTo("kept");
      assertThat(http.getConfig("after").body()).isEqualTo("back");
      assertThat(EngineThreads.live("LeaderStateImpl").isAlive())
          .as("the restarted engine leads with a thread of its own")
          .isTrue();
    }
  }
}
