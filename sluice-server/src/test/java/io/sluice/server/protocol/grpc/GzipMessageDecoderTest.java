package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/** Inflating gRPC's gzip messages with a hard bound. */
class GzipMessageDecoderTest {
  @Test
  void inflatesAMessageBackToItsBytes() throws IOException {
    byte[] message = new byte[100_000];
    new Random(7).nextBytes(message);
    Arrays.fill(message, 50_000, 90_000, (byte) 'x');

    assertThat(GzipMessageDecoder.inflate(NacosH2HandlerTest.gzip(message), 1 << 20))
        .isEqualTo(message);
    assertThat(GzipMessageDecoder.inflate(NacosH2HandlerTest.gzip(new byte[0]), 10)).isEmpty();
  }

  @Test
  void inflatesUpToExactlyTheLimitAndRefusesOneByteMore() throws IOException {
    int limit = 70_000;
    byte[] atLimit = new byte[limit];
    Arrays.fill(atLimit, (byte) 'a');

    assertThat(GzipMessageDecoder.inflate(NacosH2HandlerTest.gzip(atLimit), limit))
        .isEqualTo(atLimit);
    assertThatThrownBy(
            () ->
                GzipMessageDecoder.inflate(
                    NacosH2HandlerTest.gzip(Arrays.copyOf(atLimit, limit + 1)), limit))
        .isInstanceOf(GzipMessageDecoder.InflatedTooLargeException.class)
        .hasMessage("decompressed gRPC message exceeds maximum size 70000");
  }

  @Test
  void refusesABombOfAThousandToOne() throws IOException {
    ByteArrayOutputStream compressed = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(compressed)) {
      byte[] zeros = new byte[1 << 20];
      for (int i = 0; i < 64; i++) {
        gzip.write(zeros); // 64 MiB of zeros
      }
    }
    byte[] bomb = compressed.toByteArray();
    assertThat(bomb.length).isLessThan(128 * 1024);

    assertThatThrownBy(() -> GzipMessageDecoder.inflate(bomb, 1 << 20))
        .isInstanceOf(GzipMessageDecoder.InflatedTooLargeException.class);
  }

  @Test
  void refusesBytesThatAreNotGzipOrAreCutShort() throws IOException {
    byte[] whole = NacosH2HandlerTest.gzip("{\"a\":1}".getBytes());

    assertThatThrownBy(() -> GzipMessageDecoder.inflate("{\"a\":1}".getBytes(), 1 << 20))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(GzipMessageDecoder.InflatedTooLargeException.class);
    assertThatThrownBy(
            () -> GzipMessageDecoder.inflate(Arrays.copyOf(whole, whole.length - 3), 1 << 20))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(GzipMessageDecoder.InflatedTooLargeException.class);
  }
}
