package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.server.config.grpc.ConfigMessages;
import io.sluice.server.naming.grpc.NamingBodyDecoders;
import io.sluice.server.naming.grpc.NamingMessages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Coverage-guided fuzzing of the JSON bodies of gRPC requests, as the port reads them once the
 * Payload decoded: each decodes as its request type (and says what it touches) or is refused with
 * an {@link IOException}; anything else fails. The hot naming types are read as the server reads
 * them, by their streaming {@link BodyDecoder} first, and must come out exactly as databind alone
 * reads them: the same request field by field, or the same refusal with the same message. Replays
 * the committed corpus unless {@code JAZZER_FUZZ=1}.
 */
class RequestBodyFuzzTest {
  private static final List<Class<? extends NacosRequest>> REQUESTS =
      List.of(
          ConfigMessages.ConfigQueryRequest.class,
          ConfigMessages.ConfigPublishRequest.class,
          ConfigMessages.ConfigBatchListenRequest.class,
          NamingMessages.InstanceRequest.class,
          NamingMessages.BatchInstanceRequest.class,
          NamingMessages.SubscribeServiceRequest.class,
          ConnectionMessages.ConnectionSetupRequest.class,
          NamingMessages.ServiceQueryRequest.class,
          NamingMessages.PersistentInstanceRequest.class);

  private static final MessageCodec DATABIND = databindOnly();
  private static final MessageCodec AS_SERVED = asServed();

  private static MessageCodec databindOnly() {
    MessageCodec codec = new MessageCodec();
    REQUESTS.forEach(codec::register);
    return codec;
  }

  /** As the server registers them: the hot naming types with their streaming decoders. */
  static MessageCodec asServed() {
    MessageCodec codec = databindOnly();
    codec.register(NamingMessages.InstanceRequest.class, NamingBodyDecoders::instance);
    codec.register(NamingMessages.PersistentInstanceRequest.class, NamingBodyDecoders::persistent);
    codec.register(NamingMessages.BatchInstanceRequest.class, NamingBodyDecoders::batch);
    codec.register(NamingMessages.ServiceQueryRequest.class, NamingBodyDecoders::query);
    codec.register(NamingMessages.SubscribeServiceRequest.class, NamingBodyDecoders::subscribe);
    return codec;
  }

  @FuzzTest(maxDuration = "5s")
  void requestBodiesDecodeOrAreRefused(FuzzedDataProvider data) {
    Class<? extends NacosRequest> type = data.pickValue(REQUESTS);
    byte[] json = data.consumeRemainingAsString().getBytes(StandardCharsets.UTF_8);
    Payload payload = Payload.of(type.getSimpleName(), json);
    assertThat(reading(AS_SERVED, payload)).isEqualTo(reading(DATABIND, payload));
  }

  /** The request as JSON with every field, or the refusal's message. */
  static Object reading(MessageCodec codec, Payload payload) {
    try {
      NacosRequest request = (NacosRequest) codec.decode(payload);
      request.resources();
      return codec.mapper().valueToTree(request);
    } catch (IOException refused) {
      // malformed JSON or a field of the wrong type
      return "refused: " + refused.getMessage();
    }
  }
}
