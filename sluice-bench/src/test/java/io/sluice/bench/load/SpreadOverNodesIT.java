package io.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.bench.load.lean.LeanConnection;
import io.sluice.bench.load.lean.LeanTransport;
import io.sluice.bench.load.lean.PushHandler;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.testing.FreePorts;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Given several servers (a cluster's nodes), both drivers spread their connections over them in
 * turn: two standalone servers here, each counting the connections it registered.
 */
class SpreadOverNodesIT {
  @TempDir Path data;

  private final List<SluiceServer> servers = new ArrayList<>();

  @BeforeEach
  void startTwoServers() {
    for (String name : List.of("a", "b")) {
      SluiceServer server =
          FreePorts.startServer(ServerOptions.builder().dataDir(data.resolve(name)));
      assertThat(server.awaitReady(60, TimeUnit.SECONDS)).isTrue();
      servers.add(server);
    }
  }

  @AfterEach
  void stop() {
    servers.forEach(SluiceServer::close);
  }

  @Test
  void theLeanDriversConnectionsTakeTheServersInTurn() {
    List<InetSocketAddress> grpc =
        servers.stream()
            .map(s -> InetSocketAddress.createUnresolved("127.0.0.1", s.grpcPort()))
            .toList();
    try (LeanTransport transport = new LeanTransport(grpc, 1, 10_000)) {
      List<LeanConnection> connections = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        connections.add(transport.connectNow(LeanTransport.namingLabels(), PushHandler.IGNORE));
      }

      assertThat(servers).extracting(s -> s.connections().size()).containsExactly(2, 2);
      connections.forEach(LeanConnection::close);
    }
  }

  @Test
  void eachOfficialClientInstanceIsGivenTheNextServer() throws Exception {
    List<Settings.Endpoint> endpoints =
        servers.stream()
            .map(s -> new Settings.Endpoint("127.0.0.1", s.httpPort(), s.grpcPort()))
            .toList();
    var callers = Executors.newFixedThreadPool(2);
    try (OfficialNamingClient client =
        new OfficialNamingClient(
            Scenarios.officialProperties(endpoints),
            4,
            callers,
            new Failures(new PrintStream(OutputStream.nullOutputStream())))) {
      // Each NamingService connects as it is made; wait for all four, then count them per server.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (servers.stream().mapToInt(s -> s.connections().size()).sum() < 4
          && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }

      assertThat(servers).extracting(s -> s.connections().size()).containsExactly(2, 2);
    } finally {
      callers.shutdownNow();
    }
  }
}
