package io.sluice.server.protocol.grpc;

import io.grpc.Attributes;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServerTransportFilter;
import io.grpc.Status;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.handler.ssl.SslContext;
import io.sluice.server.clock.ServerClock;
import io.sluice.server.protocol.ClientFaultLog;
import io.sluice.server.protocol.grpc.ConnectionMessages.ConnectionSetupRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC port of Nacos 2.x: {@code /Request/request} (unary, every client request) and {@code
 * /BiRequestStream/requestBiStream} (the stream a client opens to register its connection and
 * receive pushes), served by the {@link GrpcTransport} chosen at start. What a call does is {@link
 * NacosCalls}'s, the same for both transports.
 *
 * <p>Calls run directly on the Netty event loops: handlers do CPU work only, so no thread hop is
 * needed. The loops and the listening channel are of the {@link NettyIo} chosen at start (native
 * epoll or NIO); everything above them is the same on both. A connection's identity is its
 * transport, assigned when its HTTP/2 handshake is done.
 */
public final class GrpcServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GrpcServer.class);

  static final Attributes.Key<String> CONNECTION_ID = Attributes.Key.create("sluice.connectionId");

  /** The listening transport: grpc-java's server or {@link NettyH2Server}. */
  interface Listening {
    int port();

    void close();
  }

  private final Listening listening;
  private final NettyIo io;
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final HandshakeGate gate;
  private final EventLoopLag lag;

  private GrpcServer(
      Listening listening,
      NettyIo io,
      EventLoopGroup boss,
      EventLoopGroup workers,
      HandshakeGate gate,
      ServerClock clock) {
    this.listening = listening;
    this.io = io;
    this.boss = boss;
    this.workers = workers;
    this.gate = gate;
    this.lag = new EventLoopLag(clock, workers);
  }

  /**
   * Starts listening.
   *
   * @param transport which HTTP/2 implementation serves the port
   * @param io the I/O transport its sockets and event loops run on
   * @param ready false while the server is starting: requests are then answered with error 300 and
   *     clients retry
   * @param tlsCertificate the PEM certificate to serve TLS with, or null for plaintext
   * @param tlsPrivateKey its PEM (PKCS#8) private key
   * @param faults where clients' faults (refused connections) are noted, rate-limited
   * @param handshakeTimeoutMillis how long a new connection has to finish its HTTP/2 handshake
   * @param maxHandshakes sockets that may be handshaking at once; more are closed at once
   * @param maxHandshakesPerAddress of those, how many may come from one source address
   * @param maxMessageBytes the largest message accepted; larger ones fail the call with
   *     RESOURCE_EXHAUSTED before any of it is decoded
   */
  public static GrpcServer start(
      GrpcTransport transport,
      NettyIo io,
      String host,
      int port,
      int eventLoops,
      int maxMessageBytes,
      long handshakeTimeoutMillis,
      int maxHandshakes,
      int maxHandshakesPerAddress,
      ClientFaultLog faults,
      Path tlsCertificate,
      Path tlsPrivateKey,
      ConnectionRegistry registry,
      RequestRouter router,
      MessageCodec codec,
      BooleanSupplier ready,
      ServerClock clock) {
    codec.register(ConnectionSetupRequest.class);
    NacosCalls calls = new NacosCalls(registry, router, codec, ready, clock, faults);
    // Handshaked transports are bounded like registered connections: a client holds one of each.
    HandshakeGate gate =
        new HandshakeGate(
            maxHandshakes, maxHandshakesPerAddress, registry.maxConnections(), faults);
    EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, io.handlers());
    EventLoopGroup workers = new MultiThreadIoEventLoopGroup(eventLoops, io.handlers());
    ChannelFactory<ServerChannel> serverChannels = () -> gate.guard(io.newServerChannel());
    try {
      SslContext tls = tlsCertificate == null ? null : tls(tlsCertificate, tlsPrivateKey);
      InetSocketAddress address = new InetSocketAddress(host, port);
      Listening listening =
          switch (transport) {
            case GRPC_JAVA ->
                startGrpcJava(
                    address,
                    boss,
                    workers,
                    serverChannels,
                    tls,
                    gate,
                    calls,
                    maxMessageBytes,
                    handshakeTimeoutMillis);
            case NETTY_H2 ->
                NettyH2Server.start(
                    address,
                    boss,
                    workers,
                    serverChannels,
                    tls,
                    gate,
                    calls,
                    maxMessageBytes,
                    handshakeTimeoutMillis,
                    clock);
          };
      log.info("gRPC port {}:{}: {} on {}", host, listening.port(), transport, io.describe());
      return new GrpcServer(listening, io, boss, workers, gate, clock);
    } catch (RuntimeException e) {
      boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      workers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw e;
    }
  }

  /** A Netty TLS context for the gRPC port: ALPN {@code h2}, as grpc-java configures it. */
  private static SslContext tls(Path certificate, Path privateKey) {
    try {
      return GrpcSslContexts.forServer(certificate.toFile(), privateKey.toFile()).build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "cannot use TLS certificate " + certificate + " and key " + privateKey, e);
    }
  }

  private static Listening startGrpcJava(
      InetSocketAddress address,
      EventLoopGroup boss,
      EventLoopGroup workers,
      ChannelFactory<ServerChannel> serverChannels,
      SslContext tls,
      HandshakeGate gate,
      NacosCalls calls,
      int maxMessageBytes,
      long handshakeTimeoutMillis) {
    ServerServiceDefinition requestService =
        ServerServiceDefinition.builder("Request")
            .addMethod(NacosGrpcMethods.UNARY, new UnaryCallHandler(calls))
            .build();
    ServerServiceDefinition streamService =
        ServerServiceDefinition.builder("BiRequestStream")
            .addMethod(NacosGrpcMethods.BI_STREAM, new StreamCallHandler(calls))
            .build();
    NettyServerBuilder builder = NettyServerBuilder.forAddress(address);
    if (tls != null) {
      builder.sslContext(tls);
    }
    Server server =
        builder
            .channelFactory(serverChannels)
            .bossEventLoopGroup(boss)
            .workerEventLoopGroup(workers)
            .directExecutor()
            .maxInboundMessageSize(maxMessageBytes)
            // A socket that never completes its HTTP/2 handshake is closed, not held; how many may
            // be handshaking at once is the gate's bound.
            .handshakeTimeout(handshakeTimeoutMillis, TimeUnit.MILLISECONDS)
            // The official client pings every 6 minutes; allow that without GOAWAY(too_many_pings).
            .permitKeepAliveTime(NettyH2Server.PERMITTED_PING_INTERVAL_MINUTES, TimeUnit.MINUTES)
            .permitKeepAliveWithoutCalls(true)
            .addTransportFilter(new IdentityFilter(calls, gate))
            .addService(requestService)
            .addService(streamService)
            .build();
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot listen on gRPC port " + address.getHostString() + ":" + address.getPort(), e);
    }
    return new Listening() {
      @Override
      public int port() {
        return server.getPort();
      }

      @Override
      public void close() {
        server.shutdown();
        try {
          if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
            server.shutdownNow();
            server.awaitTermination(2, TimeUnit.SECONDS);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          server.shutdownNow();
        }
      }
    };
  }

  public int port() {
    return listening.port();
  }

  /** The I/O transport the port runs on. */
  public NettyIo io() {
    return io;
  }

  /** The listening channel: an epoll or NIO server socket, as {@link #io()} says. */
  ServerChannel listeningChannel() {
    return gate.guarded();
  }

  /** Sockets accepted and not yet through their HTTP/2 handshake. */
  public int handshakingSockets() {
    return gate.handshaking();
  }

  /**
   * How far behind its work the slowest event loop is, in nanoseconds (see {@link EventLoopLag});
   * call from one thread at a time.
   */
  public long eventLoopLagNanos() {
    return lag.nanos();
  }

  /** Handshaked HTTP/2 transports open now (a client holds one). */
  public int transports() {
    return gate.established();
  }

  @Override
  public void close() {
    listening.close();
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Gives each transport its connection id, and closes the connection when the transport ends. */
  private static final class IdentityFilter extends ServerTransportFilter {
    private final NacosCalls calls;
    private final HandshakeGate gate;

    IdentityFilter(NacosCalls calls, HandshakeGate gate) {
      this.calls = calls;
      this.gate = gate;
    }

    @Override
    public Attributes transportReady(Attributes attributes) {
      SocketAddress remote = attributes.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
      gate.handshaked(remote, attributes.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR));
      return attributes.toBuilder().set(CONNECTION_ID, calls.newConnectionId(remote)).build();
    }

    @Override
    public void transportTerminated(Attributes attributes) {
      calls.transportClosed(attributes == null ? null : attributes.get(CONNECTION_ID));
    }
  }

  /** {@code /Request/request}: one payload in, one payload out. */
  private static final class UnaryCallHandler implements ServerCallHandler<Payload, Payload> {
    private final NacosCalls calls;

    UnaryCallHandler(NacosCalls calls) {
      this.calls = calls;
    }

    @Override
    public ServerCall.Listener<Payload> startCall(
        ServerCall<Payload, Payload> call, Metadata headers) {
      // Ask for two so that a client sending a second message is noticed and refused.
      call.request(2);
      return new ServerCall.Listener<>() {
        private Payload request;

        @Override
        public void onMessage(Payload message) {
          if (request != null) {
            call.close(
                Status.INTERNAL.withDescription("more than one request on a unary call"),
                new Metadata());
            return;
          }
          request = message;
        }

        @Override
        public void onHalfClose() {
          if (request == null) {
            call.close(Status.INTERNAL.withDescription("no request"), new Metadata());
            return;
          }
          calls.unary(
              call.getAttributes().get(CONNECTION_ID), request, new ServerCallReply(call, calls));
        }
      };
    }
  }

  /** Writes a unary call's outcome on grpc-java's call. */
  private record ServerCallReply(ServerCall<Payload, Payload> call, NacosCalls calls)
      implements NacosCalls.UnaryReply {
    @Override
    public void answer(NacosResponse response) {
      Payload encoded;
      try {
        encoded = calls.codec().encode(response);
      } catch (RuntimeException e) {
        // A bug of ours, not the client's: encoding is outside the catch below, which reads an
        // IllegalStateException as a cancelled call and would leave this one unanswered.
        calls.faults().note("gRPC answer not encodable", e);
        fail(Status.Code.INTERNAL, "cannot encode the answer");
        return;
      }
      try {
        call.sendHeaders(new Metadata());
        call.sendMessage(encoded);
        call.close(Status.OK, new Metadata());
      } catch (IllegalStateException cancelled) {
        // The client gave up on the call (timeout or disconnect); nothing to send it to.
      }
    }

    @Override
    public void fail(Status.Code code, String description) {
      try {
        call.close(code.toStatus().withDescription(description), new Metadata());
      } catch (IllegalStateException cancelled) {
        // As above.
      }
    }
  }

  /** A connection's stream on grpc-java: its {@link ServerCall}. */
  private record ServerCallPushStream(ServerCall<Payload, Payload> call) implements PushStream {
    @Override
    public void send(Payload message) {
      call.sendMessage(message);
    }

    @Override
    public void close(Status.Code code, String description) {
      call.close(code.toStatus().withDescription(description), new Metadata());
    }
  }

  /** {@code /BiRequestStream/requestBiStream}: registers the connection, carries pushes. */
  private static final class StreamCallHandler implements ServerCallHandler<Payload, Payload> {
    private final NacosCalls calls;

    StreamCallHandler(NacosCalls calls) {
      this.calls = calls;
    }

    @Override
    public ServerCall.Listener<Payload> startCall(
        ServerCall<Payload, Payload> call, Metadata headers) {
      String connectionId = call.getAttributes().get(CONNECTION_ID);
      SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
      call.sendHeaders(new Metadata());
      call.request(1);
      return new ServerCall.Listener<>() {
        private Connection connection;
        private boolean refused;

        @Override
        public void onMessage(Payload message) {
          if (connection == null) {
            connection =
                calls.openStream(connectionId, remote, message, new ServerCallPushStream(call));
            refused = connection == null;
          } else {
            calls.streamMessage(connection, message);
          }
          if (!refused && !connection.isClosed()) {
            call.request(1);
          }
        }

        @Override
        public void onHalfClose() {
          calls.streamEnded(connection, "client closed the stream");
        }

        @Override
        public void onCancel() {
          calls.streamEnded(connection, "stream cancelled");
        }
      };
    }
  }
}
