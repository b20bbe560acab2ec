package io.sluice.server.protocol.grpc;

import static io.sluice.server.protocol.grpc.EmbeddedH2Client.DATA;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.protocol.grpc.EmbeddedH2Client.Frame;
import io.sluice.server.testing.ManualClock;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The netty-h2 transport sends a response's shared tail from the cache's own memory: neither the
 * handler, the HTTP/2 encoder nor the channel copies it into the answer, and none releases it, so
 * answers still queued in the socket read what the cache holds until they are written.
 */
class SharedTailAnswerTest {
  /** {@code "text":"yyy…"}: the cached piece, in direct memory, unreleasable. */
  private static final ByteBuf TAIL = tail("\"text\":\"" + "y".repeat(4000) + "\"}");

  private final ManualClock clock = new ManualClock();
  private final MessageCodec codec = new MessageCodec();
  private final EmbeddedH2Client client = new EmbeddedH2Client(clock, codec, router());

  public static final class SharedTailRequest extends NacosRequest {
    @Override
    public String module() {
      return "test";
    }
  }

  public static final class SharedTailResponse extends NacosResponse {
    public String text;

    @Override
    protected int encodedLengthAfterRequestId() {
      return TAIL.readableBytes();
    }

    @Override
    protected void writeAfterRequestId(ByteBuf into) {
      into.writeBytes(TAIL, TAIL.readerIndex(), TAIL.readableBytes());
    }

    @Override
    protected ByteBuf sharedTail() {
      return TAIL;
    }

    @Override
    protected void writeBeforeSharedTail(ByteBuf head) {}
  }

  private static ByteBuf tail(String json) {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
    return Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(direct));
  }

  private RequestRouter router() {
    RequestRouter router = new RequestRouter(codec, clock, new ServerMetrics());
    router.register(
        SharedTailRequest.class,
        (request, context) -> CompletableFuture.completedFuture(new SharedTailResponse()));
    return router;
  }

  @AfterEach
  void close() {
    client.close();
  }

  @Test
  void sendsTheCachedTailOfEachAnswerFromTheCachesMemoryAndLeavesItIntact() throws Exception {
    client.handshake();
    ByteBuf in = Unpooled.buffer();
    client.call(
        in, 1, NacosH2Handler.STREAM_PATH, false, "ConnectionSetupRequest", "{\"labels\":{}}");
    client.send(in);
    // Drops the handshake's frames, the stream's headers and the server's SetupAckRequest.
    client.frames();
    in = Unpooled.buffer();
    for (int i = 0; i < 4; i++) {
      client.call(in, 3 + 2 * i, NacosH2Handler.UNARY_PATH, true, "SharedTailRequest", "{}");
    }
    client.send(in);

    // The answers are written but not yet read off the channel: change the cache (test only) and
    // every answer shows the change, so none holds a copy.
    int at = TAIL.readerIndex() + "\"text\":\"".length();
    TAIL.setByte(at, 'Z');
    List<byte[]> messages;
    try {
      messages =
          client.frames().stream().filter(f -> f.type() == DATA).map(Frame::payload).toList();
    } finally {
      TAIL.setByte(at, 'y');
    }

    assertThat(messages).hasSize(4);
    for (byte[] message : messages) {
      Payload answer = PayloadCodec.decode(Arrays.copyOfRange(message, 5, message.length));
      SharedTailResponse read = codec.decodeAs(SharedTailResponse.class, answer.body());
      assertThat(read.requestId).startsWith("r");
      assertThat(read.text).startsWith("Zyyy").hasSize(4000);
    }
    // Written and released by the channel, the answers left the cache's buffer as it was.
    assertThat(TAIL.refCnt()).isPositive();
    assertThat(TAIL.getByte(at)).isEqualTo((byte) 'y');
  }
}
