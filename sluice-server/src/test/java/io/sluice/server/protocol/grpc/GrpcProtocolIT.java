package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.testing.FreePorts;
import io.sluice.server.testing.GrpcTransportUnderTest;
import io.sluice.server.testing.NacosWireClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The connection protocol, step by step, with a bare client that controls every message. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcProtocolIT {
  @TempDir static Path dataDir;

  private SluiceServer server;

  @BeforeAll
  void start() {
    server =
        FreePorts.startServer(
            ServerOptions.builder()
                .dataDir(dataDir)
                .connectionIdleTimeout(Duration.ofSeconds(1))
                .connectionProbeTimeout(Duration.ofSeconds(1))
                .pushAckTimeout(Duration.ofMillis(500))
                .grpcTransport(GrpcTransportUnderTest.get())
                .ioTransport(GrpcTransportUnderTest.io()));
    assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
  }

  @AfterAll
  void stop() {
    server.close();
  }

  private NacosWireClient connect(String module) throws Exception {
    return NacosWireClient.connect("127.0.0.1", server.grpcPort(), module);
  }

  @Test
  void answersServerCheckBeforeRegistrationWithTheTransportsConnectionId() throws Exception {
    try (NacosWireClient client = NacosWireClient.unregistered("127.0.0.1", server.grpcPort())) {
      JsonNode check = client.request("ServerCheckRequest", "{}").get(5, TimeUnit.SECONDS);

      assertThat(check.path("@type").asText()).isEqualTo("ServerCheckResponse");
      assertThat(check.path("resultCode").asInt()).isEqualTo(200);
      assertThat(check.path("supportAbilityNegotiation").asBoolean()).isTrue();
      assertThat(check.path("connectionId").asText()).contains("_127.0.0.1_");
    }
  }

  @Test
  void refusesRequestsOnAConnectionThatNeverRegistered() throws Exception {
    try (NacosWireClient client = NacosWireClient.unregistered("127.0.0.1", server.grpcPort())) {
      JsonNode response =
          client
              .request("ConfigQueryRequest", "{\"dataId\":\"a\",\"group\":\"g\",\"tenant\":\"\"}")
              .get(5, TimeUnit.SECONDS);

      assertThat(response.path("@type").asText()).isEqualTo("ErrorResponse");
      assertThat(response.path("resultCode").asInt()).isEqualTo(500);
      assertThat(response.path("errorCode").asInt()).isEqualTo(301);
      assertThat(
              client
                  .request("HealthCheckRequest", "{}")
                  .get(5, TimeUnit.SECONDS)
                  .path("errorCode")
                  .asInt())
          .isEqualTo(301);
    }
  }

  @Test
  void acknowledgesSetupWithItsAbilitiesAndThenServesRequests() throws Exception {
    try (NacosWireClient client = connect("config")) {
      JsonNode health = client.request("HealthCheckRequest", "{}").get(5, TimeUnit.SECONDS);
      assertThat(health.path("@type").asText()).isEqualTo("HealthCheckResponse");
      assertThat(health.path("resultCode").asInt()).isEqualTo(200);

      JsonNode missing =
          client
              .request(
                  "ConfigQueryRequest",
                  "{\"dataId\":\"nothing-here\",\"group\":\"DEFAULT_GROUP\",\"tenant\":\"\"}")
              .get(5, TimeUnit.SECONDS);
      assertThat(missing.path("@type").asText()).isEqualTo("ConfigQueryResponse");
      assertThat(missing.path("errorCode").asInt()).isEqualTo(300);
    }
  }

  @Test
  void answersUnknownTypesAndUnreadableBodiesWithErrorsAndKeepsServing() throws Exception {
    try (NacosWireClient client = connect("config")) {
      JsonNode unknown = client.request("NoSuchRequest", "{}").get(5, TimeUnit.SECONDS);
      assertThat(unknown.path("errorCode").asInt()).isEqualTo(ErrorCodes.NO_HANDLER);

      JsonNode garbled = client.request("ConfigQueryRequest", "{not json").get(5, TimeUnit.SECONDS);
      assertThat(garbled.path("@type").asText()).isEqualTo("ErrorResponse");
      assertThat(garbled.path("errorCode").asInt()).isEqualTo(ErrorCodes.BAD_GATEWAY);

      JsonNode wrongShape =
          client.request("ConfigQueryRequest", "[1,2,3]").get(5, TimeUnit.SECONDS);
      assertThat(wrongShape.path("errorCode").asInt()).isEqualTo(ErrorCodes.BAD_GATEWAY);

      assertThat(
              client
                  .request("HealthCheckRequest", "{}")
                  .get(5, TimeUnit.SECONDS)
                  .path("resultCode")
                  .asInt())
          .isEqualTo(200);
    }
  }

  @Test
  void refusesBadRegistrationsWithClearErrorsAndChangesNothing() throws Exception {
    String service =
        "{\"namespace\":\"public\",\"serviceName\":\"bad-input\",\"groupName\":\"G\","
            + "\"type\":\"registerInstance\"";
    try (NacosWireClient client = connect("naming")) {
      JsonNode noInstance =
          client.request("InstanceRequest", service + "}").get(5, TimeUnit.SECONDS);
      assertThat(noInstance.path("@type").asText()).isEqualTo("InstanceResponse");
      assertThat(noInstance.path("errorCode").asInt()).isEqualTo(ErrorCodes.INVALID_PARAM);
      assertThat(noInstance.path("message").asText()).isEqualTo("instance must be given");

      JsonNode noPort =
          client
              .request("InstanceRequest", service + ",\"instance\":{\"ip\":\"127.0.0.9\"}}")
              .get(5, TimeUnit.SECONDS);
      assertThat(noPort.path("message").asText()).isEqualTo("port must be given");

      JsonNode wrongType =
          client
              .request(
                  "InstanceRequest",
                  service + ",\"instance\":{\"ip\":\"127.0.0.9\",\"port\":true}}")
              .get(5, TimeUnit.SECONDS);
      assertThat(wrongType.path("@type").asText()).isEqualTo("ErrorResponse");
      assertThat(wrongType.path("errorCode").asInt()).isEqualTo(ErrorCodes.BAD_GATEWAY);
      assertThat(wrongType.path("message").asText())
          .startsWith("cannot read InstanceRequest: Cannot deserialize value of type");

      StringBuilder entries = new StringBuilder();
      for (int i = 0; i < 129; i++) {
        entries.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":\"v\"");
      }
      JsonNode tooMany =
          client
              .request(
                  "InstanceRequest",
                  service
                      + ",\"instance\":{\"ip\":\"127.0.0.9\",\"port\":1,\"metadata\":{"
                      + entries
                      + "}}}")
              .get(5, TimeUnit.SECONDS);
      assertThat(tooMany.path("errorCode").asInt()).isEqualTo(ErrorCodes.INVALID_PARAM);
      assertThat(tooMany.path("message").asText()).isEqualTo("metadata has more than 128 entries");

      JsonNode tooLarge =
          client
              .request(
                  "InstanceRequest",
                  service
                      + ",\"instance\":{\"ip\":\"127.0.0.9\",\"port\":1,\"metadata\":{\"k\":\""
                      + "x".repeat(16 * 1024)
                      + "\"}}}")
              .get(5, TimeUnit.SECONDS);
      assertThat(tooLarge.path("message").asText())
          .isEqualTo("metadata is larger than 16384 characters");

      assertThat(
              server
                  .naming()
                  .instanceCount(io.sluice.server.naming.ServiceKey.of("public", "G", "bad-input")))
          .isZero();

      // A port as a string is unusual but was always accepted (databind's coercion): still is.
      JsonNode coerced =
          client
              .request(
                  "InstanceRequest",
                  service
                      + ",\"instance\":{\"ip\":\"127.0.0.9\",\"port\":\"8080\","
                      + "\"metadata\":{\"k\":\""
                      + "x".repeat(16 * 1024 - 1)
                      + "\"}}}")
              .get(5, TimeUnit.SECONDS);
      assertThat(coerced.path("resultCode").asInt()).isEqualTo(200);
      assertThat(
              server
                  .naming()
                  .instanceCount(io.sluice.server.naming.ServiceKey.of("public", "G", "bad-input")))
          .isEqualTo(1);
    }
  }

  @Test
  void failsACallWhoseBytesAreNotAPayloadWithItsReasonWithoutHarmingOthers() throws Exception {
    MethodDescriptor<byte[], byte[]> raw = NacosWireClient.rawUnary("Request/request");
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
    try {
      for (byte[] garbage :
          new byte[][] {
            {0x13, 0x7F, 0x00},
            {(byte) 0xff, (byte) 0xff, (byte) 0xff},
            {0x0a, 0x7f},
            {0x12, 0x05, 1}
          }) {
        StatusRuntimeException failure =
            org.assertj.core.api.Assertions.catchThrowableOfType(
                StatusRuntimeException.class,
                () ->
                    ClientCalls.blockingUnaryCall(
                        channel,
                        raw,
                        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                        garbage));
        assertThat(failure).isNotNull();
        // The decoder's reason, not a bare UNKNOWN.
        assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(failure.getStatus().getDescription()).startsWith("malformed Payload");
      }
    } finally {
      channel.shutdownNow();
    }
    try (NacosWireClient client = connect("config")) {
      assertThat(
              client
                  .request("HealthCheckRequest", "{}")
                  .get(5, TimeUnit.SECONDS)
                  .path("resultCode")
                  .asInt())
          .isEqualTo(200);
    }
  }

  @Test
  void probesAQuietClientAndClosesItWhenItDoesNotAnswer() throws Exception {
    try (NacosWireClient quiet = connect("config")) {
      List<String> pushed = new CopyOnWriteArrayList<>();
      quiet.onPush((type, body) -> pushed.add(type));
      quiet.answerPushes(false);

      Status status = quiet.streamClosed().get(20, TimeUnit.SECONDS);

      assertThat(pushed).contains("ClientDetectionRequest");
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      JsonNode after = quiet.request("HealthCheckRequest", "{}").get(5, TimeUnit.SECONDS);
      assertThat(after.path("errorCode").asInt()).isEqualTo(301);
    }
  }

  @Test
  void keepsAQuietClientThatAnswersTheProbe() throws Exception {
    try (NacosWireClient quiet = connect("config")) {
      List<String> pushed = new CopyOnWriteArrayList<>();
      quiet.onPush((type, body) -> pushed.add(type));

      // Each probe is answered. Had the server closed the connection over the first one (within
      // its 1 s probe timeout), no second probe would come: the second proves the first was
      // taken, with no assumption about how long that takes.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  quiet.streamClosed().isDone()
                      || pushed.stream().filter("ClientDetectionRequest"::equals).count() >= 2);

      assertThat(quiet.streamClosed()).isNotDone();
      assertThat(
              quiet
                  .request("HealthCheckRequest", "{}")
                  .get(5, TimeUnit.SECONDS)
                  .path("resultCode")
                  .asInt())
          .isEqualTo(200);
    }
  }

  @Test
  void keepsASubscriberWhoseAcknowledgementsComeLateAndPushesItTheNewestList() throws Exception {
    try (NacosWireClient provider = connect("naming");
        NacosWireClient slow = connect("naming")) {
      // Every acknowledgement comes after the server's push deadline (500 ms, checked every
      // 500 ms), as on a node too busy to read them in time; probes are answered at once.
      slow.delayAnswers("NotifySubscriberRequest", 2_000);
      List<JsonNode> pushed = new CopyOnWriteArrayList<>();
      slow.onPush(
          (type, body) -> {
            if (type.equals("NotifySubscriberRequest")) {
              pushed.add(body);
            }
          });
      String subscribe =
          "{\"namespace\":\"public\",\"serviceName\":\"late-svc\",\"groupName\":\"DEFAULT_GROUP\","
              + "\"subscribe\":true,\"clusters\":\"\"}";
      requestOk(slow, "SubscribeServiceRequest", subscribe);
      for (int i = 0; i < 3; i++) {
        registerLateService(provider, i);
      }

      // A fourth push means three went unanswered in a row and the connection stayed: the server
      // used to close it there, and every client of a busy node then reconnected at once.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> slow.streamClosed().isDone() || pushed.size() >= 4);
      assertThat(slow.streamClosed()).isNotDone();
      // One connection holds one instance per service: each registration replaced the last.
      assertThat(hosts(pushed.get(pushed.size() - 1))).containsExactly("10.0.1.2");

      // Answered in time again: the next change arrives on the same connection.
      slow.delayAnswers("NotifySubscriberRequest", 0);
      registerLateService(provider, 3);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  slow.streamClosed().isDone()
                      || hosts(pushed.get(pushed.size() - 1)).contains("10.0.1.3"));
      assertThat(slow.streamClosed()).isNotDone();
      requestOk(slow, "HealthCheckRequest", "{}");
    }
  }

  @Test
  void keepsAListenerWhoseAcknowledgementsComeLateAndNotifiesItOfTheNextChange() throws Exception {
    try (NacosWireClient publisher = connect("config");
        NacosWireClient slow = connect("config")) {
      slow.delayAnswers("ConfigChangeNotifyRequest", 2_000);
      List<String> notified = new CopyOnWriteArrayList<>();
      slow.onPush(
          (type, body) -> {
            if (type.equals("ConfigChangeNotifyRequest")) {
              notified.add(body.path("dataId").asText());
            }
          });
      String listen =
          "{\"listen\":true,\"configListenContexts\":[{\"dataId\":\"late-cfg\","
              + "\"group\":\"DEFAULT_GROUP\",\"tenant\":\"\",\"md5\":\"\"}]}";
      requestOk(slow, "ConfigBatchListenRequest", listen);
      publishLateConfig(publisher, "v1");

      // Four notifications: three went unanswered in a row and the connection stayed (the server
      // used to close it after the third).
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> slow.streamClosed().isDone() || notified.size() >= 4);
      assertThat(slow.streamClosed()).isNotDone();
      assertThat(notified).containsOnly("late-cfg");

      slow.delayAnswers("ConfigChangeNotifyRequest", 0);
      int before = notified.size();
      publishLateConfig(publisher, "v2");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> slow.streamClosed().isDone() || notified.size() > before);
      assertThat(slow.streamClosed()).isNotDone();
    }
  }

  /**
   * A session whose every message the client sends is gzip-compressed (grpc-java's own gzip, as
   * {@code CallOptions.withCompression("gzip")} asks): server check, the stream's setup, requests,
   * and the acknowledgements of pushes on the stream. The server reads them all; its answers come
   * uncompressed, which every client reads.
   */
  @Test
  void servesAClientThatCompressesEveryMessageWithGzip() throws Exception {
    CallOptions gzip = CallOptions.DEFAULT.withCompression("gzip");
    try (NacosWireClient provider =
            NacosWireClient.connect("127.0.0.1", server.grpcPort(), "naming", gzip);
        NacosWireClient subscriber =
            NacosWireClient.connect("127.0.0.1", server.grpcPort(), "naming", gzip)) {
      List<JsonNode> pushed = new CopyOnWriteArrayList<>();
      subscriber.onPush(
          (type, body) -> {
            if (type.equals("NotifySubscriberRequest")) {
              pushed.add(body);
            }
          });
      String subscribe =
          "{\"namespace\":\"public\",\"serviceName\":\"gzip-svc\",\"groupName\":\"DEFAULT_GROUP\","
              + "\"subscribe\":true,\"clusters\":\"\"}";
      requestOk(subscriber, "SubscribeServiceRequest", subscribe);
      for (int i = 1; i <= 2; i++) {
        String register =
            "{\"namespace\":\"public\",\"serviceName\":\"gzip-svc\",\"groupName\":\"DEFAULT_GROUP\","
                + "\"type\":\"registerInstance\",\"instance\":{\"ip\":\"10.0.2."
                + i
                + "\",\"port\":80}}";
        requestOk(provider, "InstanceRequest", register);
        int ip = i;
        // Each push acknowledged, compressed, on the stream: the next one comes on the same one.
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    subscriber.streamClosed().isDone()
                        || (!pushed.isEmpty()
                            && hosts(pushed.get(pushed.size() - 1)).contains("10.0.2." + ip)));
        assertThat(subscriber.streamClosed()).isNotDone();
      }

      String content = "x".repeat(20_000); // compresses well: the server inflates it back whole
      requestOk(
          provider,
          "ConfigPublishRequest",
          "{\"dataId\":\"gzip-cfg\",\"group\":\"DEFAULT_GROUP\",\"tenant\":\"\",\"content\":\""
              + content
              + "\"}");
      JsonNode read =
          provider
              .request(
                  "ConfigQueryRequest",
                  "{\"dataId\":\"gzip-cfg\",\"group\":\"DEFAULT_GROUP\",\"tenant\":\"\"}")
              .get(5, TimeUnit.SECONDS);
      assertThat(read.path("@type").asText()).isEqualTo("ConfigQueryResponse");
      assertThat(read.path("content").asText()).isEqualTo(content);
      assertThat(provider.streamClosed()).isNotDone();
    }
  }

  private static void publishLateConfig(NacosWireClient publisher, String content)
      throws Exception {
    String publish =
        "{\"dataId\":\"late-cfg\",\"group\":\"DEFAULT_GROUP\",\"tenant\":\"\",\"content\":\""
            + content
            + "\"}";
    requestOk(publisher, "ConfigPublishRequest", publish);
  }

  private static void registerLateService(NacosWireClient provider, int i) throws Exception {
    String register =
        "{\"namespace\":\"public\",\"serviceName\":\"late-svc\",\"groupName\":\"DEFAULT_GROUP\","
            + "\"type\":\"registerInstance\",\"instance\":{\"ip\":\"10.0.1."
            + i
            + "\",\"port\":80}}";
    requestOk(provider, "InstanceRequest", register);
  }

  private static void requestOk(NacosWireClient client, String type, String json) throws Exception {
    assertThat(client.request(type, json).get(5, TimeUnit.SECONDS).path("resultCode").asInt())
        .isEqualTo(200);
  }

  private static List<String> hosts(JsonNode push) {
    List<String> ips = new ArrayList<>();
    for (JsonNode host : push.path("serviceInfo").path("hosts")) {
      ips.add(host.path("ip").asText());
    }
    return ips;
  }

  @Test
  void disconnectsASubscriberThatAnswersNeitherPushesNorTheProbeAndDropsItsInstances()
      throws Exception {
    try (NacosWireClient provider = connect("naming");
        NacosWireClient stuck = connect("naming")) {
      stuck.answerPushes(false);
      String subscribe =
          "{\"namespace\":\"public\",\"serviceName\":\"stuck-svc\",\"groupName\":\"DEFAULT_GROUP\","
              + "\"subscribe\":true,\"clusters\":\"\"}";
      assertThat(
              stuck
                  .request("SubscribeServiceRequest", subscribe)
                  .get(5, TimeUnit.SECONDS)
                  .path("resultCode")
                  .asInt())
          .isEqualTo(200);
      String register =
          "{\"namespace\":\"public\",\"serviceName\":\"stuck-own\",\"groupName\":\"DEFAULT_GROUP\","
              + "\"type\":\"registerInstance\",\"instance\":{\"ip\":\"10.9.9.9\",\"port\":1}}";
      stuck.request("InstanceRequest", register).get(5, TimeUnit.SECONDS);
      for (int i = 0; i < 5; i++) {
        String change =
            "{\"namespace\":\"public\",\"serviceName\":\"stuck-svc\",\"groupName\":\"DEFAULT_GROUP\","
                + "\"type\":\"registerInstance\",\"instance\":{\"ip\":\"10.0.0."
                + i
                + "\",\"port\":80}}";
        provider.request("InstanceRequest", change).get(5, TimeUnit.SECONDS);
      }

      assertThat(stuck.streamClosed().get(30, TimeUnit.SECONDS).getCode())
          .isEqualTo(Status.Code.UNAVAILABLE);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  server
                          .naming()
                          .instanceCount(
                              io.sluice.server.naming.ServiceKey.of(
                                  "public", "DEFAULT_GROUP", "stuck-own"))
                      == 0);
    }
  }
}
