package io.sluice.server.protocol.grpc;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Coverage-guided fuzzing of the protobuf {@code Payload} the gRPC port decodes from the network:
 * any bytes decode or are refused with {@link MalformedPayloadException}; anything else (another
 * exception, a stack overflow, an allocation the input asks for) fails. Without {@code
 * JAZZER_FUZZ=1} this replays the committed corpus under {@code
 * src/test/resources/.../PayloadFuzzTestInputs}; docs/security.md says how to fuzz longer.
 */
class PayloadFuzzTest {
  @FuzzTest(maxDuration = "5s")
  void payloadBytesDecodeOrAreRefused(byte[] bytes) {
    try {
      PayloadCodec.decode(bytes);
    } catch (MalformedPayloadException refused) {
      // the one way to refuse
    }
  }
}
