package io.sluice.server.limits;

import static org.assertj.core.api.Assertions.assertThat;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import io.sluice.server.ServerOptions;
import io.sluice.server.testing.GrpcTransportUnderTest;
import io.sluice.server.testing.MetricsPage;
import io.sluice.server.testing.ServerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bound on handshaked gRPC connections ({@code --max-grpc-connections}), against a server in a
 * process of its own: sockets that finish their HTTP/2 handshake are held up to the bound, the one
 * beyond it is closed right after its handshake with one short log line, a place freed by a closed
 * connection is taken by the next, and once the holders leave the official client connects and
 * works.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcConnectionBoundIT {
  private static final int MAX_CONNECTIONS = 2;

  /** HTTP/2's client connection preface, then an empty SETTINGS frame: a finished handshake. */
  private static final byte[] HANDSHAKE = handshake();

  private ServerProcess server;
  private final List<Socket> sockets = new ArrayList<>();
  private MetricsPage metrics;
  private ConfigService client;

  @BeforeAll
  void quietNacosClientLogs() {
    System.setProperty("JM.LOG.PATH", Path.of("target", "nacos-client-logs").toString());
  }

  @AfterEach
  void stopAll() throws Exception {
    for (Socket socket : sockets) {
      socket.close();
    }
    if (client != null) {
      client.shutDown();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void holdsHandshakedConnectionsUpToTheBoundAndRefusesTheNextOneAfterItsHandshake(
      @TempDir Path dataDir) throws Exception {
    server =
        ServerProcess.startOnFreePorts(
            dataDir,
            Stream.concat(
                    Stream.of("--max-grpc-connections", Integer.toString(MAX_CONNECTIONS)),
                    GrpcTransportUnderTest.serverArguments().stream())
                .toList(),
            Map.of(),
            "-Xmx256m",
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC");
    metrics = new MetricsPage(server.httpPort());
    int linesBefore = server.output().size();

    Socket first = handshaked();
    Socket second = handshaked();
    metrics.awaitGauge("sluice_grpc_transports", MAX_CONNECTIONS);
    Socket third = handshaked();

    assertThat(closedWithin(third, Duration.ofSeconds(10)))
        .as("the connection beyond the bound, closed by the server")
        .isTrue();
    assertThat(closedWithin(first, Duration.ofMillis(500))).as("the first, held").isFalse();
    assertThat(closedWithin(second, Duration.ofMillis(500))).as("the second, held").isFalse();
    assertThat(metrics.gauge("sluice_grpc_transports")).isEqualTo(MAX_CONNECTIONS);
    List<String> output = List.copyOf(server.output());
    List<String> logged = output.subList(linesBefore, output.size());
    assertThat(logged)
        .filteredOn(line -> line.contains("gRPC connection refused"))
        .singleElement()
        .asString()
        .contains(MAX_CONNECTIONS + " gRPC connections already (max)")
        .hasSizeLessThan(300);
    assertThat(logged).as("no stack trace").noneMatch(line -> line.startsWith("\tat "));

    // A place freed is taken by the next connection.
    first.close();
    metrics.awaitGauge("sluice_grpc_transports", MAX_CONNECTIONS - 1);
    Socket fourth = handshaked();
    assertThat(closedWithin(fourth, Duration.ofSeconds(2))).as("the fourth, held").isFalse();
    assertThat(metrics.gauge("sluice_grpc_transports")).isEqualTo(MAX_CONNECTIONS);

    // Once the holders leave, the official client connects (one transport, one registered
    // connection) and works.
    second.close();
    fourth.close();
    metrics.awaitGauge("sluice_grpc_transports", 0);
    client = configClient();
    assertThat(client.publishConfig("bound-a", "DEFAULT_GROUP", "served")).isTrue();
    assertThat(client.getConfig("bound-a", "DEFAULT_GROUP", 5_000)).isEqualTo("served");
    assertThat(metrics.gauge("sluice_grpc_connections")).isEqualTo(1);
  }

  /** A socket to the gRPC port that has sent a whole HTTP/2 handshake. */
  private Socket handshaked() throws IOException {
    Socket socket = new Socket();
    sockets.add(socket);
    socket.connect(
        new InetSocketAddress("127.0.0.1", server.httpPort() + ServerOptions.GRPC_PORT_OFFSET),
        10_000);
    socket.getOutputStream().write(HANDSHAKE);
    socket.getOutputStream().flush();
    return socket;
  }

  /**
   * Whether the server closes {@code socket} within {@code wait}, reading (and dropping) what it
   * sends meanwhile (its SETTINGS and their acknowledgement).
   */
  private static boolean closedWithin(Socket socket, Duration wait) throws IOException {
    long deadline = System.nanoTime() + wait.toNanos();
    socket.setSoTimeout(100);
    InputStream in = socket.getInputStream();
    byte[] buffer = new byte[4096];
    while (System.nanoTime() < deadline) {
      try {
        if (in.read(buffer) == -1) {
          return true;
        }
      } catch (SocketTimeoutException quiet) {
        // Still open; look again until the deadline.
      } catch (IOException reset) {
        return true;
      }
    }
    return false;
  }

  private static byte[] handshake() {
    byte[] preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    // SETTINGS frame header: length 0, type 0x4, flags 0, stream 0.
    byte[] settings = {0, 0, 0, 4, 0, 0, 0, 0, 0};
    byte[] both = new byte[preface.length + settings.length];
    System.arraycopy(preface, 0, both, 0, preface.length);
    System.arraycopy(settings, 0, both, preface.length, settings.length);
    return both;
  }

  private ConfigService configClient() throws Exception {
    Properties properties = new Properties();
    properties.put(PropertyKeyConst.SERVER_ADDR, "127.0.0.1:" + server.httpPort());
    return NacosFactory.createConfigService(properties);
  }
}
