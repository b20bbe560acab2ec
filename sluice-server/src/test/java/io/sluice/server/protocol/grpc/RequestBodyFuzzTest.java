package io.sluice.server.protocol.grpc;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.server.config.grpc.ConfigMessages;
import io.sluice.server.naming.grpc.NamingMessages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Coverage-guided fuzzing of the JSON bodies of gRPC requests, as the port reads them once the
 * Payload decoded: each decodes as its request type (and says what it touches) or is refused with
 * an {@link IOException}; anything else fails. Replays the committed corpus unless {@code
 * JAZZER_FUZZ=1}.
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
          ConnectionMessages.ConnectionSetupRequest.class);

  private static final MessageCodec CODEC = codec();

  private static MessageCodec codec() {
    MessageCodec codec = new MessageCodec();
    REQUESTS.forEach(codec::register);
    return codec;
  }

  @FuzzTest(maxDuration = "5s")
  void requestBodiesDecodeOrAreRefused(FuzzedDataProvider data) {
    Class<? extends NacosRequest> type = data.pickValue(REQUESTS);
    byte[] json = data.consumeRemainingAsString().getBytes(StandardCharsets.UTF_8);
    try {
      NacosRequest request = (NacosRequest) CODEC.decode(Payload.of(type.getSimpleName(), json));
      request.resources();
    } catch (IOException refused) {
      // malformed JSON or a field of the wrong type
    }
  }
}
