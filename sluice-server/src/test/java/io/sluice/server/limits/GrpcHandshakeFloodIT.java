package io.sluice.server.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import io.sluice.server.ServerOptions;
import io.sluice.server.testing.GrpcTransportUnderTest;
import io.sluice.server.testing.MetricsPage;
import io.sluice.server.testing.ServerProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Thousands of raw TCP sockets opened to the gRPC port and left silent, as a client trying to lock
 * others out or exhaust the server's file descriptors would: the server holds only its bounded
 * number of handshaking sockets, closes the rest at once, logs a bounded number of short lines, and
 * the official nacos-client still connects and works. The server runs in a process of its own so
 * its descriptors can be counted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcHandshakeFloodIT {
  private static final int MAX_HANDSHAKES = 200;
  private static final int MAX_HANDSHAKES_PER_ADDRESS = 50;
  private static final int FLOOD = 2_000;

  /** Of the second scenario: its client gets in once the silent sockets time out. */
  private static final int HANDSHAKE_TIMEOUT_MILLIS = 20_000;

  /** Descriptors the server may open beyond its idle count besides the flood's (clients, logs). */
  private static final int SLACK = 100;

  private ServerProcess server;
  private int httpPort;
  private final List<Socket> flood = new ArrayList<>();
  private final List<ConfigService> clients = new ArrayList<>();
  private MetricsPage metrics;

  @BeforeAll
  void quietNacosClientLogs() {
    System.setProperty("JM.LOG.PATH", Path.of("target", "nacos-client-logs").toString());
  }

  /**
   * Starts a server whose silent sockets are closed after {@code handshakeTimeoutMillis}: long
   * enough that, without the bounds, the flood would still be held when the test looks.
   */
  private void startServer(Path dataDir, int handshakeTimeoutMillis) throws Exception {
    server =
        ServerProcess.startOnFreePorts(
            dataDir,
            Stream.concat(
                    Stream.of(
                        "--max-grpc-handshakes",
                        Integer.toString(MAX_HANDSHAKES),
                        "--max-grpc-handshakes-per-address",
                        Integer.toString(MAX_HANDSHAKES_PER_ADDRESS),
                        "--grpc-handshake-timeout-ms",
                        Integer.toString(handshakeTimeoutMillis)),
                    GrpcTransportUnderTest.serverArguments().stream())
                .toList(),
            Map.of(),
            "-Xmx256m",
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC");
    httpPort = server.httpPort();
    metrics = new MetricsPage(httpPort);
  }

  @AfterEach
  void stopAll() throws Exception {
    closeFlood();
    for (ConfigService client : clients) {
      client.shutDown();
    }
    clients.clear();
    if (server != null) {
      server.close();
      server = null;
    }
  }

  private void closeFlood() throws IOException {
    for (Socket socket : flood) {
      socket.close();
    }
    flood.clear();
  }

  @Test
  void oneClientHoldingThousandsOfSilentSocketsLocksNobodyOutAndHoldsFewDescriptors(
      @TempDir Path dataDir) throws Exception {
    // Silent sockets within the bound stay held for the whole scenario.
    startServer(dataDir, 120_000);
    long idle = descriptors();
    int linesBefore = server.output().size();

    openFlood(FLOOD, "127.0.0.2");

    assertThat(descriptors())
        .as("the server's descriptors, idle it had %d", idle)
        .isLessThan(idle + MAX_HANDSHAKES_PER_ADDRESS + SLACK);
    // Well before the handshake timeout, all but the bound were closed by the server.
    awaitFloodClosed(FLOOD - MAX_HANDSHAKES_PER_ADDRESS);
    metrics.awaitGauge("sluice_grpc_handshaking_sockets", MAX_HANDSHAKES_PER_ADDRESS);
    // The official client, from another address, connects at once and works.
    ConfigService client = configClient();
    assertThat(client.publishConfig("flood-a", "DEFAULT_GROUP", "served"))
        .as("published at the first attempt")
        .isTrue();
    assertThat(client.getConfig("flood-a", "DEFAULT_GROUP", 5_000)).isEqualTo("served");
    assertThat(descriptors()).isLessThan(idle + MAX_HANDSHAKES_PER_ADDRESS + SLACK);
    // Its socket left the handshaking count when it handshaked (or nobody could connect for long).
    assertThat(metrics.gauge("sluice_grpc_handshaking_sockets"))
        .isEqualTo(MAX_HANDSHAKES_PER_ADDRESS);
    assertThat(metrics.gauge("sluice_grpc_transports")).isGreaterThanOrEqualTo(1);
    List<String> output = List.copyOf(server.output());
    List<String> logged = output.subList(linesBefore, output.size());
    assertThat(logged)
        .filteredOn(line -> line.contains("gRPC socket refused before its handshake"))
        .as(
            "%d refusals logged, rate-limited to a line per 10 s",
            FLOOD - MAX_HANDSHAKES_PER_ADDRESS)
        .hasSizeBetween(1, 5)
        .allSatisfy(line -> assertThat(line.length()).isLessThan(300));
    assertThat(logged).as("no stack trace").noneMatch(line -> line.startsWith("\tat "));

    closeFlood();
    metrics.awaitGauge("sluice_grpc_handshaking_sockets", 0);
    assertThat(client.getConfig("flood-a", "DEFAULT_GROUP", 5_000)).isEqualTo("served");
  }

  @Test
  void floodsFromManyAddressesStopAtTheTotalBoundAndClientsGetInOnceTheyTimeOut(
      @TempDir Path dataDir) throws Exception {
    startServer(dataDir, HANDSHAKE_TIMEOUT_MILLIS);
    long idle = descriptors();

    for (int source = 2; source < 10; source++) {
      openFlood(FLOOD / 8, "127.0.1." + source);
    }

    assertThat(descriptors()).isLessThan(idle + MAX_HANDSHAKES + SLACK);
    awaitFloodClosed(FLOOD - MAX_HANDSHAKES);
    metrics.awaitGauge("sluice_grpc_handshaking_sockets", MAX_HANDSHAKES);
    // The total bound is reached: a new client is refused until the silent sockets' handshake
    // timeout frees places (it retries by itself), and then connects and works.
    ConfigService client = configClient();
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(() -> client.publishConfig("flood-b", "DEFAULT_GROUP", "served later"));
    assertThat(client.getConfig("flood-b", "DEFAULT_GROUP", 5_000)).isEqualTo("served later");
    assertThat(descriptors()).isLessThan(idle + MAX_HANDSHAKES + SLACK);
    metrics.awaitGauge("sluice_grpc_handshaking_sockets", 0);
    assertThat(metrics.gauge("sluice_grpc_transports")).isGreaterThanOrEqualTo(1);
  }

  private ConfigService configClient() throws Exception {
    Properties properties = new Properties();
    properties.put(PropertyKeyConst.SERVER_ADDR, "127.0.0.1:" + httpPort);
    ConfigService client = NacosFactory.createConfigService(properties);
    clients.add(client);
    return client;
  }

  private void openFlood(int count, String sourceAddress) throws IOException {
    int grpcPort = httpPort + ServerOptions.GRPC_PORT_OFFSET;
    for (int i = 0; i < count; i++) {
      Socket socket = new Socket();
      flood.add(socket);
      socket.bind(new InetSocketAddress(sourceAddress, 0));
      socket.connect(new InetSocketAddress("127.0.0.1", grpcPort), 10_000);
    }
  }

  /**
   * Waits until at least {@code closedAtLeast} flood sockets were closed by the server, in less
   * than the handshake timeout (which would close them all anyway).
   */
  private void awaitFloodClosed(int closedAtLeast) throws Exception {
    long deadline =
        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HANDSHAKE_TIMEOUT_MILLIS * 3 / 4);
    long open;
    do {
      open = 0;
      for (Socket socket : flood) {
        if (!closedByServer(socket)) {
          open++;
        }
      }
      if (flood.size() - open >= closedAtLeast) {
        return;
      }
      Thread.sleep(200);
    } while (System.nanoTime() < deadline);
    throw new AssertionError(
        (flood.size() - open) + " flood sockets closed by the server, expected " + closedAtLeast);
  }

  private static boolean closedByServer(Socket socket) throws IOException {
    if (socket.isInputShutdown() || socket.isClosed()) {
      return true;
    }
    socket.setSoTimeout(1);
    try {
      if (socket.getInputStream().read() == -1) {
        socket.shutdownInput();
        return true;
      }
      // The server sent its HTTP/2 settings: it holds the socket.
      return false;
    } catch (SocketTimeoutException stillOpen) {
      return false;
    } catch (IOException reset) {
      socket.close();
      return true;
    }
  }

  private long descriptors() throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(server.pid()), "fd"))) {
      return fds.count();
    }
  }
}
