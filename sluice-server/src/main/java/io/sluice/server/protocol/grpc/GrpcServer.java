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
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.sluice.server.clock.ServerClock;
import io.sluice.server.protocol.ClientFaultLog;
import io.sluice.server.protocol.grpc.ConnectionMessages.ConnectionSetupRequest;
import io.sluice.server.protocol.grpc.ConnectionMessages.ErrorResponse;
import io.sluice.server.protocol.grpc.ConnectionMessages.HealthCheckResponse;
import io.sluice.server.protocol.grpc.ConnectionMessages.ServerCheckResponse;
import io.sluice.server.protocol.grpc.ConnectionMessages.SetupAckRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC port of Nacos 2.x: {@code /Request/request} (unary, every client request) and {@code
 * /BiRequestStream/requestBiStream} (the stream a client opens to register its connection and
 * receive pushes).
 *
 * <p>Calls run directly on the Netty event loops: handlers do CPU work only, so no thread hop is
 * needed. A connection's identity is its transport, assigned in {@link IdentityFilter}.
 */
public final class GrpcServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GrpcServer.class);

  static final Attributes.Key<String> CONNECTION_ID = Attributes.Key.create("sluice.connectionId");

  /** What this server tells clients it supports, in {@code SetupAckRequest}. */
  private static final Map<String, Boolean> ABILITIES =
      Map.of("supportPersistentInstanceByGrpc", true);

  private final Server server;
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final HandshakeGate gate;
  private final EventLoopLag lag;

  private GrpcServer(
      Server server,
      EventLoopGroup boss,
      EventLoopGroup workers,
      HandshakeGate gate,
      ServerClock clock) {
    this.server = server;
    this.boss = boss;
    this.workers = workers;
    this.gate = gate;
    this.lag = new EventLoopLag(clock, workers);
  }

  /**
   * Starts listening.
   *
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
    EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    EventLoopGroup workers = new MultiThreadIoEventLoopGroup(eventLoops, NioIoHandler.newFactory());
    ServerServiceDefinition requestService =
        ServerServiceDefinition.builder("Request")
            .addMethod(
                NacosGrpcMethods.UNARY, new UnaryCallHandler(registry, router, codec, ready, clock))
            .build();
    ServerServiceDefinition streamService =
        ServerServiceDefinition.builder("BiRequestStream")
            .addMethod(
                NacosGrpcMethods.BI_STREAM, new StreamCallHandler(registry, codec, clock, faults))
            .build();
    // Handshaked transports are bounded like registered connections: a client holds one of each.
    HandshakeGate gate =
        new HandshakeGate(
            maxHandshakes, maxHandshakesPerAddress, registry.maxConnections(), faults);
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(host, port));
    if (tlsCertificate != null) {
      try {
        builder.sslContext(
            GrpcSslContexts.forServer(tlsCertificate.toFile(), tlsPrivateKey.toFile()).build());
      } catch (SSLException | IllegalArgumentException e) {
        boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
        workers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
        throw new IllegalArgumentException(
            "cannot use TLS certificate " + tlsCertificate + " and key " + tlsPrivateKey, e);
      }
    }
    Server server =
        builder
            .channelFactory(gate::serverChannel)
            .bossEventLoopGroup(boss)
            .workerEventLoopGroup(workers)
            .directExecutor()
            .maxInboundMessageSize(maxMessageBytes)
            // A socket that never completes its HTTP/2 handshake is closed, not held; how many may
            // be handshaking at once is the gate's bound.
            .handshakeTimeout(handshakeTimeoutMillis, TimeUnit.MILLISECONDS)
            // The official client pings every 6 minutes; allow that without GOAWAY(too_many_pings).
            .permitKeepAliveTime(5, TimeUnit.MINUTES)
            .permitKeepAliveWithoutCalls(true)
            .addTransportFilter(new IdentityFilter(registry, gate))
            .addService(requestService)
            .addService(streamService)
            .build();
    try {
      server.start();
    } catch (IOException e) {
      boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      workers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw new UncheckedIOException("cannot listen on gRPC port " + host + ":" + port, e);
    }
    return new GrpcServer(server, boss, workers, gate, clock);
  }

  public int port() {
    return server.getPort();
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
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Gives each transport its connection id, and closes the connection when the transport ends. */
  private static final class IdentityFilter extends ServerTransportFilter {
    private final ConnectionRegistry registry;
    private final HandshakeGate gate;

    IdentityFilter(ConnectionRegistry registry, HandshakeGate gate) {
      this.registry = registry;
      this.gate = gate;
    }

    @Override
    public Attributes transportReady(Attributes attributes) {
      SocketAddress remote = attributes.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
      gate.handshaked(remote, attributes.get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR));
      String ip = "unknown";
      int port = 0;
      if (remote instanceof InetSocketAddress inet) {
        ip = inet.getAddress() == null ? inet.getHostString() : inet.getAddress().getHostAddress();
        port = inet.getPort();
      }
      return attributes.toBuilder().set(CONNECTION_ID, registry.newConnectionId(ip, port)).build();
    }

    @Override
    public void transportTerminated(Attributes attributes) {
      String id = attributes == null ? null : attributes.get(CONNECTION_ID);
      if (id != null) {
        registry.close(id, "transport closed");
      }
    }
  }

  /** {@code /Request/request}: one payload in, one payload out. */
  private static final class UnaryCallHandler implements ServerCallHandler<Payload, Payload> {
    private final ConnectionRegistry registry;
    private final RequestRouter router;
    private final MessageCodec codec;
    private final BooleanSupplier ready;
    private final ServerClock clock;

    UnaryCallHandler(
        ConnectionRegistry registry,
        RequestRouter router,
        MessageCodec codec,
        BooleanSupplier ready,
        ServerClock clock) {
      this.registry = registry;
      this.router = router;
      this.codec = codec;
      this.ready = ready;
      this.clock = clock;
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
          if (request.isMalformed()) {
            call.close(
                Status.INVALID_ARGUMENT.withDescription(request.malformedReason()), new Metadata());
            return;
          }
          respond(call, request);
        }
      };
    }

    private void respond(ServerCall<Payload, Payload> call, Payload request) {
      String connectionId = call.getAttributes().get(CONNECTION_ID);
      if (!ready.getAsBoolean()) {
        reply(call, ErrorResponse.of(ErrorCodes.INVALID_SERVER_STATUS, "server is starting"));
        return;
      }
      String type = request.type();
      if (type.equals("ServerCheckRequest")) {
        ServerCheckResponse check = new ServerCheckResponse();
        check.connectionId = connectionId;
        check.supportAbilityNegotiation = true;
        reply(call, check);
        return;
      }
      Connection connection = registry.get(connectionId);
      if (connection == null) {
        reply(call, ErrorResponse.of(ErrorCodes.UN_REGISTER, "Connection is unregistered."));
        return;
      }
      connection.touch(clock.nanoTime());
      if (type.equals("HealthCheckRequest")) {
        reply(call, new HealthCheckResponse());
        return;
      }
      String clientIp =
          request.clientIp().isEmpty() ? connection.client().clientIp() : request.clientIp();
      router
          .route(request, new RequestContext(connection, clientIp))
          .whenComplete(
              (response, failure) -> {
                if (failure != null) {
                  log.error("request {} failed", type, failure);
                  reply(call, ErrorResponse.of(ErrorCodes.SERVER_ERROR, "internal error"));
                } else {
                  reply(call, response);
                }
              });
    }

    private void reply(ServerCall<Payload, Payload> call, NacosResponse response) {
      try {
        call.sendHeaders(new Metadata());
        call.sendMessage(codec.encode(response));
        call.close(Status.OK, new Metadata());
      } catch (IllegalStateException cancelled) {
        // The client gave up on the call (timeout or disconnect); nothing to send it to.
      }
    }
  }

  /** {@code /BiRequestStream/requestBiStream}: registers the connection, carries pushes. */
  private static final class StreamCallHandler implements ServerCallHandler<Payload, Payload> {
    private final ConnectionRegistry registry;
    private final MessageCodec codec;
    private final ServerClock clock;
    private final ClientFaultLog faults;

    StreamCallHandler(
        ConnectionRegistry registry, MessageCodec codec, ServerClock clock, ClientFaultLog faults) {
      this.registry = registry;
      this.codec = codec;
      this.clock = clock;
      this.faults = faults;
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
            setUp(message);
          } else {
            NacosResponse answer = decodeResponse(message);
            if (answer != null) {
              connection.onStreamMessage(answer, clock.nanoTime());
            }
          }
          if (!refused && (connection == null || !connection.isClosed())) {
            call.request(1);
          }
        }

        private void setUp(Payload message) {
          if (message.isMalformed()) {
            refused = true;
            call.close(
                Status.INVALID_ARGUMENT.withDescription(message.malformedReason()), new Metadata());
            return;
          }
          if (!message.type().equals("ConnectionSetupRequest")) {
            refused = true;
            call.close(
                Status.FAILED_PRECONDITION.withDescription(
                    "the first message on the stream must be ConnectionSetupRequest"),
                new Metadata());
            return;
          }
          ConnectionSetupRequest setup;
          try {
            setup = (ConnectionSetupRequest) codec.decode(message);
          } catch (IOException | RuntimeException e) {
            refused = true;
            call.close(
                Status.INVALID_ARGUMENT.withDescription("unreadable ConnectionSetupRequest"),
                new Metadata());
            return;
          }
          String remoteIp = "unknown";
          int remotePort = 0;
          if (remote instanceof InetSocketAddress inet) {
            remoteIp =
                inet.getAddress() == null
                    ? inet.getHostString()
                    : inet.getAddress().getHostAddress();
            remotePort = inet.getPort();
          }
          Map<String, String> labels = setup.labels == null ? Map.of() : setup.labels;
          ClientInfo client =
              new ClientInfo(
                  message.clientIp().isEmpty() ? remoteIp : message.clientIp(),
                  setup.clientVersion == null ? "" : setup.clientVersion,
                  labels.getOrDefault("module", ""),
                  labels.getOrDefault("AppName", ""),
                  setup.tenant == null ? "" : setup.tenant,
                  labels);
          connection = registry.register(connectionId, remoteIp, remotePort, client, call);
          if (connection == null) {
            refused = true;
            faults.note(
                "gRPC connection refused",
                remoteIp + ": " + registry.maxConnections() + " connections already (max)");
            call.close(
                Status.RESOURCE_EXHAUSTED.withDescription(
                    "connection refused: the server has "
                        + registry.maxConnections()
                        + " connections, its limit"),
                new Metadata());
            return;
          }
          SetupAckRequest ack = new SetupAckRequest();
          ack.abilityTable = ABILITIES;
          connection.sendWithoutAnswer(ack);
        }

        private NacosResponse decodeResponse(Payload message) {
          try {
            return codec.decodeAs(StreamResponse.class, message.body());
          } catch (IOException | RuntimeException e) {
            log.debug("unreadable {} on stream of {}", message.type(), connectionId);
            return null;
          }
        }

        @Override
        public void onHalfClose() {
          end("client closed the stream");
        }

        @Override
        public void onCancel() {
          end("stream cancelled");
        }

        private void end(String reason) {
          if (connection != null) {
            connection.close(reason);
          }
        }
      };
    }
  }
}
