package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.protocol.ClientFaultLog;
import io.sluice.server.testing.ManualClock;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * What {@link NacosCalls} does with a unary call, by the state of the connection it came on; the
 * same for both transports, which only hand it the call.
 */
class NacosCallsTest {
  private static final SocketAddress CLIENT = new InetSocketAddress("127.0.0.1", 40_000);

  private final ManualClock clock = new ManualClock();
  private final MessageCodec codec = new MessageCodec();
  private final ConnectionRegistry registry = new ConnectionRegistry(clock, codec, 10, 10);
  private final List<RequestContext> served = new ArrayList<>();
  private final NacosCalls calls;

  /** A request served by the router: whether it was is what {@link #served} records. */
  public static final class ServedRequest extends NacosRequest {
    @Override
    public String module() {
      return "test";
    }
  }

  public static final class ServedResponse extends NacosResponse {}

  NacosCallsTest() {
    codec.register(ConnectionMessages.ConnectionSetupRequest.class);
    RequestRouter router = new RequestRouter(codec, clock, new ServerMetrics());
    router.register(
        ServedRequest.class,
        (request, context) -> {
          served.add(context);
          return CompletableFuture.completedFuture(new ServedResponse());
        });
    calls =
        new NacosCalls(
            registry, router, codec, () -> true, clock, new ClientFaultLog(clock, Runnable::run));
  }

  @Test
  void servesRequestsOnAnOpenConnection() {
    String id = calls.newConnectionId(CLIENT);
    Connection connection = open(id, new EndRecordingStream());

    NacosResponse routed = ask(id, "ServedRequest");
    NacosResponse health = ask(id, "HealthCheckRequest");

    assertThat(routed.resultCode).isEqualTo(NacosResponse.SUCCESS);
    assertThat(routed).isInstanceOf(ServedResponse.class);
    assertThat(health.resultCode).isEqualTo(NacosResponse.SUCCESS);
    assertThat(served).extracting(RequestContext::connection).containsExactly(connection);
  }

  /**
   * {@link Connection#close} ends the stream before the registry forgets the connection: a client
   * that saw its stream end and asks at once finds it still registered, and must be told it is
   * unregistered, as it is once the registry has forgotten it.
   */
  @Test
  void answersUnregisteredToARequestOnAConnectionBeingClosedAndServesNothing() {
    String id = calls.newConnectionId(CLIENT);
    List<Boolean> registeredWhenAsked = new ArrayList<>();
    List<NacosResponse> whileClosing = new ArrayList<>();
    EndRecordingStream stream =
        new EndRecordingStream() {
          @Override
          public void close(Status.Code code, String description) {
            super.close(code, description);
            // The client sees its stream end here and sends its next requests.
            registeredWhenAsked.add(registry.get(id) != null);
            whileClosing.add(ask(id, "ServedRequest"));
            whileClosing.add(ask(id, "HealthCheckRequest"));
          }
        };
    Connection connection = open(id, stream);

    connection.close("no answer to the probe");

    assertThat(stream.ends).containsExactly(Status.Code.UNAVAILABLE);
    assertThat(registeredWhenAsked).containsExactly(true);
    assertThat(whileClosing)
        .hasSize(2)
        .allSatisfy(answer -> assertThat(answer.errorCode).isEqualTo(ErrorCodes.UN_REGISTER));
    assertThat(registry.get(id)).isNull();
    assertThat(ask(id, "ServedRequest").errorCode).isEqualTo(ErrorCodes.UN_REGISTER);
    assertThat(served).isEmpty();
  }

  /**
   * A second setup stream on a transport whose connection is registered is refused for what it is,
   * not as if the server were full (it was refused "the server has 10 connections, its limit" with
   * one connection open), and the first connection goes on.
   */
  @Test
  void refusesASecondSetupStreamOnATransportForWhatItIsAndKeepsTheFirstConnection() {
    String id = calls.newConnectionId(CLIENT);
    Connection first = open(id, new EndRecordingStream());
    EndRecordingStream second = new EndRecordingStream();

    Connection refused =
        calls.openStream(
            id, CLIENT, Payload.of("ConnectionSetupRequest", utf8("{\"labels\":{}}")), second);

    assertThat(refused).isNull();
    assertThat(second.ends).containsExactly(Status.Code.ALREADY_EXISTS);
    assertThat(second.descriptions)
        .singleElement()
        .asString()
        .contains("already has its connection " + id)
        .doesNotContain("limit");
    assertThat(first.isClosed()).isFalse();
    assertThat(registry.get(id)).isSameAs(first);
    assertThat(ask(id, "ServedRequest").resultCode).isEqualTo(NacosResponse.SUCCESS);
  }

  private Connection open(String id, PushStream stream) {
    Connection connection =
        calls.openStream(
            id, CLIENT, Payload.of("ConnectionSetupRequest", utf8("{\"labels\":{}}")), stream);
    assertThat(connection).isNotNull();
    return connection;
  }

  /** The answer to a request of {@code type} on connection {@code id}, given on this thread. */
  private NacosResponse ask(String id, String type) {
    CompletableFuture<NacosResponse> answer = new CompletableFuture<>();
    calls.unary(
        id,
        Payload.of(type, utf8("{\"requestId\":\"r1\"}")),
        new NacosCalls.UnaryReply() {
          @Override
          public void answer(NacosResponse response) {
            answer.complete(response);
          }

          @Override
          public void fail(Status.Code code, String description) {
            answer.completeExceptionally(new AssertionError(code + ": " + description));
          }
        });
    assertThat(answer).isDone();
    return answer.join();
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** A connection's stream that keeps how it was ended; what is sent on it goes nowhere. */
  private static class EndRecordingStream implements PushStream {
    final List<Status.Code> ends = new ArrayList<>();
    final List<String> descriptions = new ArrayList<>();

    @Override
    public void send(Payload message) {}

    @Override
    public void close(Status.Code code, String description) {
      ends.add(code);
      descriptions.add(description);
    }
  }
}
