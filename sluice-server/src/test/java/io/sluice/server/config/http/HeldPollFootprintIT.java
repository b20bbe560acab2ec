package io.sluice.server.config.http;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.config.ContentMd5;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.FreePorts;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Measures what a held long-poll costs the server's heap: many raw HTTP/1.1 connections each hold a
 * poll; the heap is measured while they are held and again once they were all answered with the
 * connections still open, so the difference is the poll itself (the server's request and response
 * objects, the {@link HeldPoll}, its watch and heap slot), not the connection. Prints the figures;
 * fails only if a poll costs far more than it should (a buffer or a timer per poll).
 *
 * <p>More polls: {@code mvn -pl sluice-server verify -Dit.test=HeldPollFootprintIT
 * -Dsluice.footprint.polls=8000} (each poll takes two file descriptors in this one JVM).
 */
@Isolated // it measures this JVM's heap: nothing else may run beside it
class HeldPollFootprintIT {
  static final int POLLS = Integer.getInteger("sluice.footprint.polls", 3_000);

  /**
   * Generous, for GC noise: a poll measures about 1.5 KB here, of which some 300 bytes are Sluice's
   * and the rest Vert.x's request, response and headers; a body kept per poll would add kilobytes.
   */
  static final long MAX_BYTES_PER_POLL = 4_096;

  @Test
  void aHeldPollCostsAboutAKilobyteOfHeapAndNoBuffer(@TempDir Path dataDir) throws Exception {
    try (SluiceServer server = FreePorts.startServer(ServerOptions.builder().dataDir(dataDir))) {
      assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
      OpenApiClient api = new OpenApiClient(server.httpAddress());
      api.post(
          "/nacos/v1/cs/configs",
          params("dataId", "rules.json", "group", "SENTINEL_GROUP", "content", "[]"));
      String body =
          OpenApiClient.form(
              params(
                  "Listening-Configs",
                  "rules.json\u0002SENTINEL_GROUP\u0002" + ContentMd5.of("[]") + "\u0001"));
      byte[] request =
          ("POST /nacos/v1/cs/configs/listener HTTP/1.1\r\nHost: localhost\r\n"
                  + "Long-Pulling-Timeout: 120000\r\n"
                  + "Content-Type: application/x-www-form-urlencoded;charset=UTF-8\r\n"
                  + "Content-Length: "
                  + body.length()
                  + "\r\n\r\n"
                  + body)
              .getBytes(StandardCharsets.US_ASCII);

      long baseline = usedHeapAfterGc();
      List<SocketChannel> clients = new ArrayList<>(POLLS);
      try {
        for (int i = 0; i < POLLS; i++) {
          SocketChannel client =
              SocketChannel.open(new InetSocketAddress("127.0.0.1", server.httpPort()));
          client.write(ByteBuffer.wrap(request));
          clients.add(client);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> server.heldLongPolls() == POLLS);
        long held = usedHeapAfterGc();

        api.post(
            "/nacos/v1/cs/configs",
            params("dataId", "rules.json", "group", "SENTINEL_GROUP", "content", "[{}]"));
        await().atMost(Duration.ofSeconds(60)).until(() -> server.heldLongPolls() == 0);
        long answered = usedHeapAfterGc();

        long perPoll = (held - answered) / POLLS;
        long perConnectionAndPoll = (held - baseline) / POLLS;
        System.out.printf(
            "%d held long-polls: heap %.1f MB held, %.1f MB after all were answered "
                + "(connections still open), %.1f MB before connecting%n"
                + "  per held poll: %d bytes; per poll with its connection (both ends, one JVM): "
                + "%d bytes%n",
            POLLS, held / 1e6, answered / 1e6, baseline / 1e6, perPoll, perConnectionAndPoll);
        assertThat(perPoll).isLessThan(MAX_BYTES_PER_POLL);
      } finally {
        for (SocketChannel client : clients) {
          client.close();
        }
      }
    }
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(100);
      used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
