package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.protocol.ClientFaultLog;
import io.sluice.server.testing.ManualClock;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
  private static final int DATA = 0x0;
  private static final int HEADERS = 0x1;
  private static final int END_STREAM = 0x1;
  private static final int END_HEADERS = 0x4;

  /** {@code "text":"yyy…"}: the cached piece, in direct memory, unreleasable. */
  private static final ByteBuf TAIL = tail("\"text\":\"" + "y".repeat(4000) + "\"}");

  private final ManualClock clock = new ManualClock();
  private final MessageCodec codec = new MessageCodec();
  private final EmbeddedChannel channel = new EmbeddedChannel(handler());
  private final DefaultHttp2HeadersEncoder hpack = new DefaultHttp2HeadersEncoder();

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

  private NacosH2Handler handler() {
    ClientFaultLog faults = new ClientFaultLog(clock, Runnable::run);
    codec.register(ConnectionMessages.ConnectionSetupRequest.class);
    ConnectionRegistry registry = new ConnectionRegistry(clock, codec, 10, 10);
    RequestRouter router = new RequestRouter(codec, clock, new ServerMetrics());
    router.register(
        SharedTailRequest.class,
        (request, context) -> CompletableFuture.completedFuture(new SharedTailResponse()));
    NacosCalls calls = new NacosCalls(registry, router, codec, () -> true, clock, faults);
    return NacosH2Handler.create(calls, new HandshakeGate(10, 10, 10, faults), clock, 1 << 20);
  }

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  @Test
  void sendsTheCachedTailOfEachAnswerFromTheCachesMemoryAndLeavesItIntact() throws Exception {
    handshake();
    ByteBuf in = Unpooled.buffer();
    call(in, 1, NacosH2Handler.STREAM_PATH, false, "ConnectionSetupRequest", "{\"labels\":{}}");
    channel.writeInbound(in);
    written(); // the handshake's frames, the stream's headers and the server's SetupAckRequest
    in = Unpooled.buffer();
    for (int i = 0; i < 4; i++) {
      call(in, 3 + 2 * i, NacosH2Handler.UNARY_PATH, true, "SharedTailRequest", "{}");
    }
    channel.writeInbound(in);

    // The answers are written but not yet read off the channel: change the cache (test only) and
    // every answer shows the change, so none holds a copy.
    int at = TAIL.readerIndex() + "\"text\":\"".length();
    TAIL.setByte(at, 'Z');
    List<byte[]> messages;
    try {
      messages = dataFrames(written());
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

  private void call(ByteBuf out, int id, String path, boolean end, String type, String json)
      throws Http2Exception {
    Http2Headers headers =
        new DefaultHttp2Headers()
            .method("POST")
            .scheme("http")
            .path(path)
            .authority("localhost")
            .set("content-type", "application/grpc")
            .set("te", "trailers");
    ByteBuf block = Unpooled.buffer();
    hpack.encodeHeaders(id, headers, block);
    frame(out, HEADERS, END_HEADERS, id, block);
    String body = json.replaceFirst("\\{", "{\"requestId\":\"r" + id + "\",").replace(",}", "}");
    byte[] payload = PayloadCodec.encode(Payload.of(type, body.getBytes(StandardCharsets.UTF_8)));
    ByteBuf data = Unpooled.buffer().writeByte(0).writeInt(payload.length).writeBytes(payload);
    frame(out, DATA, end ? END_STREAM : 0, id, data);
  }

  private void handshake() {
    ByteBuf in = Unpooled.buffer();
    in.writeBytes("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    frame(in, 0x4, 0, 0, Unpooled.EMPTY_BUFFER);
    channel.writeInbound(in);
    assertThat(channel.isOpen()).isTrue();
  }

  private static void frame(ByteBuf out, int type, int flags, int streamId, ByteBuf payload) {
    out.writeMedium(payload.readableBytes()).writeByte(type).writeByte(flags).writeInt(streamId);
    out.writeBytes(payload);
    payload.release();
  }

  /** Everything written to the channel so far, in order, its buffers released. */
  private ByteBuf written() {
    ByteBuf all = Unpooled.buffer();
    for (Object message; (message = channel.readOutbound()) != null; ) {
      ByteBuf buf = (ByteBuf) message;
      all.writeBytes(buf);
      buf.release();
    }
    return all;
  }

  /** The payload of every DATA frame in {@code frames}, which this releases. */
  private static List<byte[]> dataFrames(ByteBuf frames) {
    List<byte[]> payloads = new ArrayList<>();
    while (frames.readableBytes() >= 9) {
      int length = frames.readUnsignedMedium();
      int type = frames.readUnsignedByte();
      frames.skipBytes(5);
      ByteBuf payload = frames.readSlice(length);
      if (type == DATA) {
        payloads.add(ByteBufUtil.getBytes(payload));
      }
    }
    frames.release();
    return payloads;
  }
}
