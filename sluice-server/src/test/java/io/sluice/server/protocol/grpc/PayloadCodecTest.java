package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alibaba.nacos.api.config.remote.request.ConfigQueryRequest;
import com.alibaba.nacos.api.config.remote.response.ConfigQueryResponse;
import com.alibaba.nacos.common.remote.PayloadRegistry;
import com.alibaba.nacos.common.remote.client.grpc.GrpcUtils;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Cross-checks our hand-written codec against the official client's generated protobuf code. */
class PayloadCodecTest {
  @Test
  void decodesWhatTheOfficialClientEncodes() {
    ConfigQueryRequest request = new ConfigQueryRequest();
    request.setDataId("app.yaml");
    request.setGroup("DEFAULT_GROUP");
    request.setTenant("");
    request.putHeader("notify", "false");
    request.putHeader("accessToken", "tok");
    request.setRequestId("42");
    byte[] wire = GrpcUtils.convert(request).toByteArray();

    Payload payload = PayloadCodec.decode(wire);

    assertThat(payload.type()).isEqualTo("ConfigQueryRequest");
    assertThat(payload.headers())
        .containsEntry("notify", "false")
        .containsEntry("accessToken", "tok");
    assertThat(new String(payload.body(), StandardCharsets.UTF_8))
        .contains("\"dataId\":\"app.yaml\"")
        .contains("\"requestId\":\"42\"");
  }

  @Test
  void encodesWhatTheOfficialClientDecodes() throws Exception {
    PayloadRegistry.init();
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("k", "v");
    String json =
        "{\"resultCode\":200,\"errorCode\":0,\"requestId\":\"7\",\"content\":\"k: v ünïcødé\","
            + "\"contentType\":\"yaml\",\"md5\":\"abc\",\"lastModified\":5,\"beta\":false}";
    byte[] wire =
        PayloadCodec.encode(
            new Payload(
                "ConfigQueryResponse", "10.0.0.1", headers, json.getBytes(StandardCharsets.UTF_8)));

    com.alibaba.nacos.api.grpc.auto.Payload official =
        com.alibaba.nacos.api.grpc.auto.Payload.parseFrom(wire);
    ConfigQueryResponse response = (ConfigQueryResponse) GrpcUtils.parse(official);

    assertThat(official.getMetadata().getType()).isEqualTo("ConfigQueryResponse");
    assertThat(official.getMetadata().getClientIp()).isEqualTo("10.0.0.1");
    assertThat(official.getMetadata().getHeadersMap()).containsEntry("k", "v");
    assertThat(response.getContent()).isEqualTo("k: v ünïcødé");
    assertThat(response.getContentType()).isEqualTo("yaml");
    assertThat(response.getRequestId()).isEqualTo("7");
    assertThat(response.isSuccess()).isTrue();
  }

  @Test
  void roundTripsLargeBodiesWhoseLengthsNeedMultiByteVarints() {
    byte[] body = new byte[3 * 1024 * 1024];
    new Random(1).nextBytes(body);
    Payload decoded =
        PayloadCodec.decode(PayloadCodec.encode(Payload.of("ConfigPublishRequest", body)));

    assertThat(decoded.body()).isEqualTo(body);
  }

  @Test
  void skipsFieldsItDoesNotKnow() {
    byte[] known = PayloadCodec.encode(Payload.of("HealthCheckRequest", "{}".getBytes()));
    // field 9, varint 150 then field 10, fixed32, then field 11, fixed64: all unknown to Payload.
    byte[] extra = {(byte) 0x48, (byte) 0x96, 0x01, 0x55, 1, 2, 3, 4, 0x59, 1, 2, 3, 4, 5, 6, 7, 8};
    byte[] wire = new byte[extra.length + known.length];
    System.arraycopy(extra, 0, wire, 0, extra.length);
    System.arraycopy(known, 0, wire, extra.length, known.length);

    assertThat(PayloadCodec.decode(wire).type()).isEqualTo("HealthCheckRequest");
  }

  @Test
  void rejectsTruncatedAndLyingInputWithoutReadingPastIt() {
    byte[] wire = PayloadCodec.encode(Payload.of("HealthCheckRequest", "{}".getBytes()));
    int malformed = 0;
    for (int cut = 1; cut < wire.length; cut++) {
      byte[] truncated = new byte[cut];
      System.arraycopy(wire, 0, truncated, 0, cut);
      // A cut on a field boundary is a valid, shorter message; any other cut must be reported
      // as malformed, never as an index error.
      try {
        assertThat(PayloadCodec.decode(truncated).type()).isEqualTo("HealthCheckRequest");
      } catch (MalformedPayloadException expected) {
        malformed++;
      }
    }
    assertThat(malformed).isGreaterThan(wire.length / 2);
    byte[] hugeLength = {0x12, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07};
    assertThatThrownBy(() -> PayloadCodec.decode(hugeLength))
        .isInstanceOf(MalformedPayloadException.class);
    byte[] groupWireType = {0x13};
    assertThatThrownBy(() -> PayloadCodec.decode(groupWireType))
        .isInstanceOf(MalformedPayloadException.class);
  }

  @Test
  void rejectsAPayloadWithoutAType() {
    assertThatThrownBy(() -> PayloadCodec.decode(new byte[0]))
        .isInstanceOf(MalformedPayloadException.class)
        .hasMessageContaining("type");
  }

  @Test
  void writesAnAnswersHeadStraightIntoABufferAsTheArrayEncodingDoesAtEveryVarintWidth() {
    byte[] type = "QueryServiceResponse".getBytes(StandardCharsets.US_ASCII);
    for (int length : new int[] {0, 1, 117, 118, 127, 128, 16_380, 16_384, 2_097_152}) {
      byte[] body = new byte[length];
      byte[] head = PayloadCodec.head(Payload.of("QueryServiceResponse", body));
      ByteBuf out = Unpooled.buffer();

      PayloadCodec.writeHead(out, type, length);

      assertThat(ByteBufUtil.getBytes(out)).as("body of %d bytes", length).isEqualTo(head);
      assertThat(PayloadCodec.headLength(type, length)).isEqualTo(head.length);
      ByteBuf message =
          PayloadCodec.grpcMessage(Payload.of("T", body), UnpooledByteBufAllocator.DEFAULT);
      assertThat(message.readByte()).isZero();
      assertThat(message.readInt()).isEqualTo(message.readableBytes());
      assertThat(ByteBufUtil.getBytes(message))
          .isEqualTo(PayloadCodec.encode(Payload.of("T", body)));
      message.release();
    }
  }
}
