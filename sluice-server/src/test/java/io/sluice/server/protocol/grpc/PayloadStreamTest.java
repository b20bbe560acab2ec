package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PayloadStreamTest {
  private final Payload payload =
      new Payload(
          "QueryServiceResponse",
          "10.0.0.9",
          Map.of("k", "v"),
          "{\"requestId\":\"1\",\"resultCode\":200}".repeat(300).getBytes(StandardCharsets.UTF_8));

  @Test
  void drainsTheSameBytesTheCodecEncodesAndIsEmptyAfterwards() throws Exception {
    PayloadStream stream = new PayloadStream(payload);
    byte[] expected = PayloadCodec.encode(payload);
    assertThat(stream.available()).isEqualTo(expected.length);

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThat(stream.drainTo(out)).isEqualTo(expected.length);

    assertThat(out.toByteArray()).isEqualTo(expected);
    assertThat(stream.available()).isZero();
    assertThat(stream.read()).isEqualTo(-1);
    assertThat(stream.drainTo(new ByteArrayOutputStream())).isZero();
  }

  @Test
  void readsTheSameBytesWhenReadInsteadOfDrainedEvenAfterAPartialRead() throws Exception {
    byte[] expected = PayloadCodec.encode(payload);
    PayloadStream stream = new PayloadStream(payload);

    byte[] start = new byte[10];
    assertThat(stream.read(start, 0, 10)).isEqualTo(10);
    ByteArrayOutputStream rest = new ByteArrayOutputStream();
    assertThat(stream.drainTo(rest)).isEqualTo(expected.length - 10);

    ByteArrayOutputStream all = new ByteArrayOutputStream();
    all.write(start);
    all.write(rest.toByteArray());
    assertThat(all.toByteArray()).isEqualTo(expected);
  }

  @Test
  void anEmptyBodyIsAllHead() throws Exception {
    Payload empty = Payload.of("HealthCheckResponse", new byte[0]);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new PayloadStream(empty).drainTo(out);
    assertThat(out.toByteArray()).isEqualTo(PayloadCodec.encode(empty));
    assertThat(PayloadCodec.decode(out.toByteArray()).type()).isEqualTo("HealthCheckResponse");
  }
}
