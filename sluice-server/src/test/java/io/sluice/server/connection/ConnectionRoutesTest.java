package io.sluice.server.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.protocol.grpc.Connection;
import io.sluice.server.protocol.grpc.ConnectionMessages.ClientDetectionRequest;
import io.sluice.server.protocol.grpc.ConnectionRegistry;
import io.sluice.server.protocol.grpc.MessageCodec;
import io.sluice.server.protocol.grpc.NacosResponse;
import io.sluice.server.protocol.grpc.PushCallback;
import io.sluice.server.protocol.grpc.RegisteredConnections;
import io.sluice.server.protocol.grpc.RegisteredConnections.SentTypes;
import io.sluice.server.testing.ManualClock;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The loader API's resets answer what was done: a reset sent is {@code success}; a connection that
 * is closed but still registered (its stream ended, the registry forgets it just after) gets none,
 * and the answer says so instead of {@code success}.
 */
class ConnectionRoutesTest {
  private final ManualClock clock = new ManualClock();
  private final ConnectionRegistry registry =
      new ConnectionRegistry(clock, new MessageCodec(), 10, 10);
  private final HttpClient http = HttpClient.newHttpClient();
  private final Vertx vertx = Vertx.vertx();
  private HttpServer server;

  @BeforeEach
  void serveTheRoutes() throws Exception {
    Router router = Router.router(vertx);
    new ConnectionRoutes(registry).mount(router);
    server =
        vertx
            .createHttpServer()
            .requestHandler(router)
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void answersSuccessOnceTheResetIsSent() throws Exception {
    SentTypes sent = new SentTypes();
    RegisteredConnections.open(registry, "c1", sent);

    HttpResponse<String> answer = get("/nacos/v2/core/loader/reloadClient?connectionId=c1");

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).isEqualTo("success");
    assertThat(sent.types()).containsExactly("ConnectResetRequest");
  }

  @Test
  void saysNoResetWasSentToAConnectionClosedButStillRegistered() throws Exception {
    SentTypes sent = new SentTypes();
    Connection connection = RegisteredConnections.open(registry, "c1", sent);
    List<Boolean> registeredWhenAsked = new ArrayList<>();
    List<HttpResponse<String>> whileClosing = new ArrayList<>();
    // Closing fails the pending pushes after the stream ended and before the registry forgets the
    // connection: the moment a reload can find it closed but still registered.
    connection.push(
        new ClientDetectionRequest(),
        60_000,
        failedOnly(
            () -> {
              registeredWhenAsked.add(registry.get("c1") != null);
              whileClosing.add(get("/nacos/v2/core/loader/reloadClient?connectionId=c1"));
            }));

    connection.close("the client went away");

    assertThat(registeredWhenAsked).containsExactly(true);
    assertThat(whileClosing).hasSize(1);
    assertThat(whileClosing.get(0).statusCode()).isEqualTo(409);
    assertThat(whileClosing.get(0).body()).contains("c1 is closed").contains("no reset was sent");
    assertThat(sent.types()).containsExactly("ClientDetectionRequest");
  }

  @Test
  void reloadCurrentAsksOnlyOpenConnectionsToLeave() throws Exception {
    SentTypes older = new SentTypes();
    RegisteredConnections.open(registry, "older", older);
    clock.advance(Duration.ofSeconds(1));
    SentTypes newest = new SentTypes();
    Connection closing = RegisteredConnections.open(registry, "newest", newest);
    List<HttpResponse<String>> whileClosing = new ArrayList<>();
    closing.push(
        new ClientDetectionRequest(),
        60_000,
        failedOnly(() -> whileClosing.add(get("/nacos/v2/core/loader/reloadCurrent?count=1"))));

    closing.close("the client went away");

    assertThat(whileClosing)
        .singleElement()
        .satisfies(answer -> assertThat(answer.body()).isEqualTo("success"));
    assertThat(newest.types()).containsExactly("ClientDetectionRequest");
    assertThat(older.types()).containsExactly("ConnectResetRequest");
  }

  private static PushCallback failedOnly(Runnable onFailed) {
    return new PushCallback() {
      @Override
      public void onAcknowledged(NacosResponse response) {}

      @Override
      public void onFailed(String reason) {
        onFailed.run();
      }
    };
  }

  private HttpResponse<String> get(String path) {
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.actualPort() + path))
              .timeout(Duration.ofSeconds(10))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
