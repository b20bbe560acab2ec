package io.sluice.bench.load.lean;

import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.sluice.server.protocol.grpc.NacosGrpcMethods;
import io.sluice.server.protocol.grpc.Payload;
import io.sluice.server.protocol.grpc.PayloadCodec;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The lean driver's side of Nacos's gRPC port: one Netty event-loop group shared by every channel
 * it opens, so a thousand client connections cost a thousand sockets, not a thousand threads. The
 * wire format is the server's own {@link PayloadCodec}, which is cross-checked against the official
 * client.
 *
 * <p>Callbacks of every channel run on the shared event loops ({@code directExecutor}): whoever
 * reacts to a response or a push must not block.
 */
public final class LeanTransport implements AutoCloseable {
  static final MethodDescriptor<Payload, Payload> UNARY = NacosGrpcMethods.UNARY;
  static final MethodDescriptor<Payload, Payload> BI_STREAM = NacosGrpcMethods.BI_STREAM;

  public static final long DEFAULT_TIMEOUT_MILLIS = 10_000;

  private final List<InetSocketAddress> servers;
  private static final int KEEP_ALIVE_SECONDS = 5;

  private final AtomicInteger nextServer = new AtomicInteger();
  private final Set<LeanConnection> open = ConcurrentHashMap.newKeySet();
  private final EventLoopGroup eventLoops;
  private final long timeoutMillis;

  /**
   * @param grpcPort the server's gRPC port (its HTTP port + 1000 by Nacos's convention)
   * @param ioThreads event-loop threads shared by all channels
   */
  public LeanTransport(String host, int grpcPort, int ioThreads, long timeoutMillis) {
    this(List.of(InetSocketAddress.createUnresolved(host, grpcPort)), ioThreads, timeoutMillis);
  }

  /**
   * A transport to several servers (the nodes of a cluster): each {@link #connect} goes to the next
   * one in turn, so {@code n} connections to {@code k} servers put {@code n / k} on each (one more
   * on the first {@code n % k}).
   *
   * @param servers each server's gRPC address
   * @param ioThreads event-loop threads shared by all channels
   */
  public LeanTransport(List<InetSocketAddress> servers, int ioThreads, long timeoutMillis) {
    if (ioThreads < 1) {
      throw new IllegalArgumentException("ioThreads must be at least 1, got " + ioThreads);
    }
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("no server to connect to");
    }
    this.servers = List.copyOf(servers);
    this.timeoutMillis = timeoutMillis;
    this.eventLoops = new MultiThreadIoEventLoopGroup(ioThreads, NioIoHandler.newFactory());
    eventLoops.scheduleAtFixedRate(
        this::keepAlive, KEEP_ALIVE_SECONDS, KEEP_ALIVE_SECONDS, TimeUnit.SECONDS);
  }

  /**
   * As nacos-client does: a connection that sent nothing for {@value #KEEP_ALIVE_SECONDS} s sends a
   * {@code HealthCheckRequest}. A server may otherwise drop a connection idle for long (Nacos
   * probes one idle for 20 s and unregisters it unless the probe's answer comes within 5 s, which a
   * loaded node on a shared core can miss), and the driver's pool sits idle while a slow cluster is
   * seeded. A busy connection (every measured one) never sends it.
   */
  private void keepAlive() {
    for (LeanConnection connection : open) {
      if (connection.isClosed()) {
        open.remove(connection);
      } else {
        connection.keepAliveIfIdle();
      }
    }
  }

  /**
   * Opens a connection to the next server and completes once the server has registered it (the
   * handshake: {@code ServerCheckRequest}, {@code ConnectionSetupRequest} on the stream, {@code
   * SetupAckRequest} back).
   *
   * @param labels the {@code ConnectionSetupRequest} labels; {@code module} is {@code config} or
   *     {@code naming}
   */
  public CompletableFuture<LeanConnection> connect(Map<String, String> labels, PushHandler pushes) {
    InetSocketAddress server =
        servers.get(Math.floorMod(nextServer.getAndIncrement(), servers.size()));
    ManagedChannel channel =
        NettyChannelBuilder.forAddress(server.getHostString(), server.getPort())
            .usePlaintext()
            .eventLoopGroup(eventLoops)
            .channelType(NioSocketChannel.class)
            .directExecutor()
            .maxInboundMessageSize(64 * 1024 * 1024)
            .build();
    CompletableFuture<LeanConnection> opened =
        LeanConnection.open(channel, labels, pushes, timeoutMillis);
    opened.thenAccept(open::add);
    return opened;
  }

  /** {@link #connect} and wait. */
  public LeanConnection connectNow(Map<String, String> labels, PushHandler pushes) {
    return connect(labels, pushes).orTimeout(timeoutMillis, TimeUnit.MILLISECONDS).join();
  }

  public static Map<String, String> configLabels() {
    return Map.of("module", "config", "source", "sdk", "taskId", "0", "AppName", "sluice-bench");
  }

  public static Map<String, String> namingLabels() {
    return Map.of("module", "naming", "source", "sdk", "AppName", "sluice-bench");
  }

  @Override
  public void close() {
    eventLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
