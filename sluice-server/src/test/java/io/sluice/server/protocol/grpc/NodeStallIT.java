package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.server.testing.BesideInProcessTests;
import io.sluice.server.testing.FreePorts;
import io.sluice.server.testing.NacosWireClient;
import io.sluice.server.testing.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that stalls must not take its own backlog for silent clients. The server runs in its own
 * process with the default timeouts (a connection silent for 20 s is probed; the probe has 5 s);
 * while it probes a crowd of quiet clients it is frozen (SIGSTOP) for longer than the probe's
 * window, as a long GC pause or a starved CPU would, then resumed. Every client answered its probe
 * at once, so none may be closed. Before the server learnt to recognise its own stalls, the sweep
 * that ran first on resuming found the probes overdue and closed the connections whose answers were
 * still unread in its sockets; their next requests were answered "Connection is unregistered"
 * (4,631 of 5,000 connections in a 3-node cluster on a loaded machine).
 */
@BesideInProcessTests
class NodeStallIT {
  private static final int CLIENTS = 200;

  @TempDir Path dataDir;

  @Test
  void keepsQuietClientsThatAnsweredTheirProbesWhileTheNodeWasFrozen() throws Exception {
    int port = FreePorts.httpPortWithFreeGrpcPort();
    List<NacosWireClient> clients = new ArrayList<>();
    try (ServerProcess server = ServerProcess.start(port, dataDir)) {
      AtomicInteger probed = new AtomicInteger();
      for (int c = 0; c < CLIENTS; c++) {
        NacosWireClient client = NacosWireClient.connect("127.0.0.1", port + 1000, "naming");
        client.onPush(
            (type, body) -> {
              if (type.equals("ClientDetectionRequest")) {
                probed.incrementAndGet();
              }
            });
        clients.add(client);
      }

      // The clients send nothing, so after 20 s the server probes them; freeze it at the first
      // probe, for longer than the 5 s a probe has to be answered.
      await().atMost(Duration.ofSeconds(90)).until(() -> probed.get() > 0);
      server.pause();
      Thread.sleep(7_000);
      server.resume();

      // By now every probe sent before the freeze was answered, and overdue on the node's clock.
      await().atMost(Duration.ofSeconds(60)).until(() -> probed.get() >= CLIENTS);
      Thread.sleep(2_000);
      List<Integer> closed = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        if (clients.get(c).streamClosed().isDone()) {
          closed.add(c);
        }
      }
      assertThat(closed).as("clients the node closed after its own stall").isEmpty();
      assertThat(
              clients
                  .get(0)
                  .request("HealthCheckRequest", "{}")
                  .get(10, TimeUnit.SECONDS)
                  .path("resultCode")
                  .asInt())
          .isEqualTo(200);
    } finally {
      for (NacosWireClient client : clients) {
        client.close();
      }
    }
  }
}
