package io.sluice.server.limits;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.FreePorts;
import java.lang.reflect.InvocationTargetException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Ratis thread that dies under a running server, as one does on an OutOfMemoryError: readiness
 * reports it at once (instead of OK while every write hangs), writes are refused with the reason,
 * and the store restarts itself in-process with every acknowledged write.
 *
 * <p>The leader's event processor (which advances the commit index) is killed with {@code
 * Thread.stop()}, which throws an asynchronous error into it wherever it is, as an allocation
 * failure would. The JDK removed {@code Thread.stop()} in Java 20; on such a JDK the test is
 * skipped, saying so.
 */
class DeadEngineThreadIT {
  private static final String READINESS = "/nacos/v1/console/health/readiness";

  @TempDir Path dataDir;

  @Test
  void aDeadLeaderThreadFailsReadinessAndTheStoreRestartsItselfWithItsWrites() throws Exception {
    try (SluiceServer server =
        SluiceServer.start(
            ServerOptions.builder()
                .httpPort(FreePorts.httpPortWithFreeGrpcPort())
                .dataDir(dataDir)
                .build())) {
      assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
      OpenApiClient http = new OpenApiClient(server.httpAddress());
      assertThat(publish(http, "before", "kept").statusCode()).isEqualTo(200);

      Thread leader = engineThread("LeaderStateImpl");
      kill(leader);
      leader.join(TimeUnit.SECONDS.toMillis(10));
      assertThat(leader.isAlive()).isFalse();

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
              () -> assertThat(publish(http, "after", "back").statusCode()).isEqualTo(200));
      assertThat(http.get(READINESS, params()).statusCode()).isEqualTo(200);
      assertThat(read(http, "before").body()).isEqualTo("kept");
      assertThat(read(http, "after").body()).isEqualTo("back");
      assertThat(engineThread("LeaderStateImpl").isAlive())
          .as("the restarted engine leads with a thread of its own")
          .isTrue();
    }
  }

  /** The live thread of the store's Ratis engine whose name ends with {@code role}. */
  private static Thread engineThread(String role) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .filter(thread -> thread.getName().endsWith("-" + role))
        .filter(DeadEngineThreadIT::inEngineGroup)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no live Ratis thread " + role));
  }

  private static boolean inEngineGroup(Thread thread) {
    for (ThreadGroup group = thread.getThreadGroup(); group != null; group = group.getParent()) {
      if (group.getName().startsWith("sluice-ratis-")) {
        return true;
      }
    }
    return false;
  }

  private static void kill(Thread thread) throws Exception {
    try {
      Thread.class.getMethod("stop").invoke(thread);
    } catch (InvocationTargetException e) {
      Assumptions.assumeTrue(
          !(e.getCause() instanceof UnsupportedOperationException),
          "this JDK has no Thread.stop() to kill a Ratis thread with; skipped here");
      throw e;
    }
  }

  private static HttpResponse<String> publish(OpenApiClient http, String dataId, String content)
      throws Exception {
    return http.post(
        "/nacos/v1/cs/configs",
        params("dataId", dataId, "group", "DEFAULT_GROUP", "content", content));
  }

  private static HttpResponse<String> read(OpenApiClient http, String dataId) throws Exception {
    return http.get("/nacos/v1/cs/configs", params("dataId", dataId, "group", "DEFAULT_GROUP"));
  }
}
