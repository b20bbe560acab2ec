package io.sluice.server.limits;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.FreePorts;
import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A disk that fills up under a running server, on a real (small) tmpfs: writes are refused with a
 * clear reason and readiness says why, reads go on, and both recover by themselves once space
 * returns. Mounting needs root; without it the test is skipped, saying so.
 */
class DiskFullIT {
  private static final long MOUNT_BYTES = 48L * 1024 * 1024;
  private static final long MIN_FREE = 16L * 1024 * 1024;

  @TempDir Path scratch;
  private Path mount;

  @BeforeEach
  void mountTmpfs() throws Exception {
    mount = scratch.resolve("small-disk");
    Files.createDirectories(mount);
    int status = -1;
    try {
      Process process =
          new ProcessBuilder(
                  "mount", "-t", "tmpfs", "-o", "size=" + MOUNT_BYTES, "tmpfs", mount.toString())
              .redirectErrorStream(true)
              .start();
      status = process.waitFor(30, TimeUnit.SECONDS) ? process.exitValue() : -1;
    } catch (IOException e) {
      // no mount command
    }
    Assumptions.assumeTrue(
        status == 0,
        "DiskFullIT needs to mount a tmpfs (run as root, as .ci/run does); skipped here");
  }

  @AfterEach
  void unmount() throws Exception {
    if (mount != null) {
      new ProcessBuilder("umount", "-l", mount.toString()).start().waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aFullDiskRefusesWritesClearlyAndRecoversWhenSpaceReturns() throws Exception {
    try (SluiceServer server =
        SluiceServer.start(
            ServerOptions.builder()
                .httpPort(FreePorts.httpPortWithFreeGrpcPort())
                .dataDir(mount.resolve("data"))
                .minFreeDiskBytes(MIN_FREE)
                .build())) {
      assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
      OpenApiClient http = new OpenApiClient(server.httpAddress());
      assertThat(publish(http, "before", "kept").statusCode()).isEqualTo(200);

      Path filler = mount.resolve("filler");
      long toFill = Files.getFileStore(mount).getUsableSpace() - MIN_FREE / 2;
      try (OutputStream out = Files.newOutputStream(filler)) {
        byte[] chunk = new byte[1024 * 1024];
        for (long written = 0; written < toFill; written += chunk.length) {
          out.write(chunk, 0, (int) Math.min(chunk.length, toFill - written));
        }
      }

      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                HttpResponse<String> refused = publish(http, "during", "lost?");
                assertThat(refused.statusCode()).isEqualTo(503);
                assertThat(refused.body()).contains("nearly full").contains("min-free-disk-bytes");
              });
      HttpResponse<String> readiness = http.get("/nacos/v1/console/health/readiness", params());
      assertThat(readiness.statusCode()).isEqualTo(500);
      assertThat(readiness.body()).contains("nearly full");
      assertThat(read(http, "before").body()).isEqualTo("kept");

      Files.delete(filler);

      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> assertThat(publish(http, "after", "back").statusCode()).isEqualTo(200));
      assertThat(http.get("/nacos/v1/console/health/readiness", params()).statusCode())
          .isEqualTo(200);
      assertThat(read(http, "after").body()).isEqualTo("back");
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
