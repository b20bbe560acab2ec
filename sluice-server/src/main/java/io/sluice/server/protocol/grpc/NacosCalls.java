package io.sluice.server.protocol.grpc;

import io.grpc.Status;
import io.sluice.server.clock.ServerClock;
import io.sluice.server.protocol.ClientFaultLog;
import io.sluice.server.protocol.grpc.ConnectionMessages.ConnectionSetupRequest;
import io.sluice.server.protocol.grpc.ConnectionMessages.ErrorResponse;
import io.sluice.server.protocol.grpc.ConnectionMessages.HealthCheckResponse;
import io.sluice.server.protocol.grpc.ConnectionMessages.ServerCheckResponse;
import io.sluice.server.protocol.grpc.ConnectionMessages.SetupAckRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the Nacos gRPC port does with a call, whichever {@link GrpcTransport} carried it: a unary
 * request is answered (server check, health check, or through the {@link RequestRouter}), a
 * stream's first message registers the connection, and its later messages answer pushes. Transports
 * only turn frames into payloads and statuses; every decision about a request is taken here, once,
 * so both transports refuse and answer alike.
 */
final class NacosCalls {
  private static final Logger log = LoggerFactory.getLogger(NacosCalls.class);

  /** What this server tells clients it supports, in {@code SetupAckRequest}. */
  private static final Map<String, Boolean> ABILITIES =
      Map.of("supportPersistentInstanceByGrpc", true);

  /** Where a unary call's outcome goes: a Nacos answer, or a failed call with a gRPC status. */
  interface UnaryReply {
    /** The answer; may be called on any thread (a write completes on the store's thread). */
    void answer(NacosResponse response);

    void fail(Status.Code code, String description);
  }

  private final ConnectionRegistry registry;
  private final RequestRouter router;
  private final MessageCodec codec;
  private final BooleanSupplier ready;
  private final ServerClock clock;
  private final ClientFaultLog faults;

  NacosCalls(
      ConnectionRegistry registry,
      RequestRouter router,
      MessageCodec codec,
      BooleanSupplier ready,
      ServerClock clock,
      ClientFaultLog faults) {
    this.registry = registry;
    this.router = router;
    this.codec = codec;
    this.ready = ready;
    this.clock = clock;
    this.faults = faults;
  }

  MessageCodec codec() {
    return codec;
  }

  ClientFaultLog faults() {
    return faults;
  }

  /** The id of a transport from {@code remote}, given when its HTTP/2 handshake is done. */
  String newConnectionId(SocketAddress remote) {
    return registry.newConnectionId(ip(remote), port(remote));
  }

  /** Answers the one request of a {@code /Request/request} call. */
  void unary(String connectionId, Payload request, UnaryReply reply) {
    if (request.isUnread()) {
      reply.fail(request.unreadStatus(), request.unreadReason());
      return;
    }
    if (!ready.getAsBoolean()) {
      reply.answer(ErrorResponse.of(ErrorCodes.INVALID_SERVER_STATUS, "server is starting"));
      return;
    }
    String type = request.type();
    if (type.equals("ServerCheckRequest")) {
      ServerCheckResponse check = new ServerCheckResponse();
      check.connectionId = connectionId;
      check.supportAbilityNegotiation = true;
      reply.answer(check);
      return;
    }
    Connection connection = registry.get(connectionId);
    // A connection being closed is unregistered for its client: it may already have seen its
    // stream end, while the registry forgets the connection only after the stream is closed.
    if (connection == null || connection.isClosed()) {
      reply.answer(ErrorResponse.of(ErrorCodes.UN_REGISTER, "Connection is unregistered."));
      return;
    }
    connection.touch(clock.nanoTime());
    if (type.equals("HealthCheckRequest")) {
      reply.answer(new HealthCheckResponse());
      return;
    }
    String clientIp =
        request.clientIp().isEmpty() ? connection.client().clientIp() : request.clientIp();
    router.route(request, new RequestContext(connection, clientIp), reply);
  }

  /**
   * Registers the connection of a {@code /BiRequestStream/requestBiStream} call from its first
   * message. Returns null after closing {@code stream} with the reason when the message is not a
   * readable {@code ConnectionSetupRequest}, the registry is full, or the transport already has its
   * connection (a second setup stream on it).
   */
  Connection openStream(
      String connectionId, SocketAddress remote, Payload message, PushStream stream) {
    if (message.isUnread()) {
      stream.close(message.unreadStatus(), message.unreadReason());
      return null;
    }
    if (!message.type().equals("ConnectionSetupRequest")) {
      stream.close(
          Status.Code.FAILED_PRECONDITION,
          "the first message on the stream must be ConnectionSetupRequest");
      return null;
    }
    ConnectionSetupRequest setup;
    try {
      setup = (ConnectionSetupRequest) codec.decode(message);
    } catch (IOException | RuntimeException e) {
      stream.close(Status.Code.INVALID_ARGUMENT, "unreadable ConnectionSetupRequest");
      return null;
    }
    String remoteIp = ip(remote);
    Map<String, String> labels = setup.labels == null ? Map.of() : setup.labels;
    ClientInfo client =
        new ClientInfo(
            message.clientIp().isEmpty() ? remoteIp : message.clientIp(),
            setup.clientVersion == null ? "" : setup.clientVersion,
            labels.getOrDefault("module", ""),
            labels.getOrDefault("AppName", ""),
            setup.tenant == null ? "" : setup.tenant,
            labels);
    Connection connection;
    try {
      connection = registry.register(connectionId, remoteIp, port(remote), client, stream);
    } catch (ConnectionAlreadyRegisteredException e) {
      faults.note(
          "gRPC connection refused",
          remoteIp + ": a second setup stream on a transport whose connection is registered");
      stream.close(
          Status.Code.ALREADY_EXISTS,
          "connection refused: this transport already has its connection "
              + connectionId
              + "; a new connection needs a new transport");
      return null;
    }
    if (connection == null) {
      faults.note(
          "gRPC connection refused",
          remoteIp + ": " + registry.maxConnections() + " connections already (max)");
      stream.close(
          Status.Code.RESOURCE_EXHAUSTED,
          "connection refused: the server has "
              + registry.maxConnections()
              + " connections, its limit");
      return null;
    }
    SetupAckRequest ack = new SetupAckRequest();
    ack.abilityTable = ABILITIES;
    connection.sendWithoutAnswer(ack);
    return connection;
  }

  /** A message on a registered connection's stream: the client's answer to a push. */
  void streamMessage(Connection connection, Payload message) {
    NacosResponse answer;
    try {
      answer = codec.decodeAs(StreamResponse.class, message.body());
    } catch (IOException | RuntimeException e) {
      log.debug("unreadable {} on stream of {}", message.type(), connection.id());
      return;
    }
    connection.onStreamMessage(answer, clock.nanoTime());
  }

  /** The stream ended (the client half-closed it, cancelled it, or the transport went). */
  void streamEnded(Connection connection, String reason) {
    if (connection != null) {
      connection.close(reason);
    }
  }

  /** The transport of {@code connectionId} closed: its connection, if registered, goes too. */
  void transportClosed(String connectionId) {
    if (connectionId != null) {
      registry.close(connectionId, "transport closed");
    }
  }

  private static String ip(SocketAddress remote) {
    if (remote instanceof InetSocketAddress inet) {
      return inet.getAddress() == null ? inet.getHostString() : inet.getAddress().getHostAddress();
    }
    return "unknown";
  }

  private static int port(SocketAddress remote) {
    return remote instanceof InetSocketAddress inet ? inet.getPort() : 0;
  }
}
