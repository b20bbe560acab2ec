package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.protocol.ClientFaultLog;
import io.sluice.server.testing.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The netty-h2 transport's connection-level policy and answer framing, on an embedded channel with
 * a manual clock.
 */
class NacosH2HandlerTest {
  private static final int DATA = 0x0;
  private static final int HEADERS = 0x1;
  private static final int PING = 0x6;
  private static final int GO_AWAY = 0x7;
  private static final int END_STREAM = 0x1;
  private static final int END_HEADERS = 0x4;
  private static final long ENHANCE_YOUR_CALM = 0xb;

  private final ManualClock clock = new ManualClock();
  private final MessageCodec codec = new MessageCodec();
  private final EmbeddedChannel channel = new EmbeddedChannel(handler());
  private final DefaultHttp2HeadersEncoder hpack = new DefaultHttp2HeadersEncoder();

  /** A request whose answer carries {@code bytes} bytes of text. */
  public static final class LongAnswerRequest extends NacosRequest {
    public int bytes;

    @Override
    public String module() {
      return "test";
    }
  }

  public static final class LongAnswerResponse extends NacosResponse {
    public String text;
  }

  /** A request whose answer breaks its promise of a length, as an encoding bug would. */
  public static final class BrokenAnswerRequest extends NacosRequest {
    @Override
    public String module() {
      return "test";
    }
  }

  public static final class BrokenAnswerResponse extends NacosResponse {
    @Override
    protected int encodedLengthAfterRequestId() {
      return 10;
    }

    @Override
    protected void writeAfterRequestId(ByteBuf into) {
      into.writeByte('}');
    }
  }

  private NacosH2Handler handler() {
    ClientFaultLog faults = new ClientFaultLog(clock, Runnable::run);
    codec.register(ConnectionMessages.ConnectionSetupRequest.class);
    ConnectionRegistry registry = new ConnectionRegistry(clock, codec, 10, 10);
    NacosCalls calls =
        new NacosCalls(registry, testRouter(codec, clock), codec, () -> true, clock, faults);
    return NacosH2Handler.create(calls, new HandshakeGate(10, 10, 10, faults), clock, 1 << 20);
  }

  /**
   * A router for {@link LongAnswerRequest} and {@link BrokenAnswerRequest}, for either transport.
   */
  static RequestRouter testRouter(MessageCodec codec, ManualClock clock) {
    RequestRouter router = new RequestRouter(codec, clock, new ServerMetrics());
    router.register(
        LongAnswerRequest.class,
        (request, context) -> {
          LongAnswerResponse response = new LongAnswerResponse();
          response.text = "x".repeat(request.bytes);
          return CompletableFuture.completedFuture(response);
        });
    router.register(
        BrokenAnswerRequest.class,
        (request, context) -> CompletableFuture.completedFuture(new BrokenAnswerResponse()));
    return router;
  }

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  @Test
  void allowsAPingEveryFiveMinutes() {
    handshake();
    for (int i = 0; i < 5; i++) {
      ping();
      clock.advance(Duration.ofMinutes(5));
    }
    assertThat(channel.isOpen()).isTrue();
    assertThat(frameTypes()).doesNotContain(GO_AWAY);
  }

  @Test
  void answersPingsFasterThanAllowedWithGoAwayEnhanceYourCalmAfterTwoStrikes() {
    handshake();
    ping(); // the first is always allowed
    ping(); // strike 1
    ping(); // strike 2
    assertThat(channel.isOpen()).isTrue();
    ping(); // strike 3: too many
    channel.runPendingTasks();
    List<long[]> frames = frames();
    assertThat(frames).anySatisfy(f -> assertThat(f).containsExactly(GO_AWAY, ENHANCE_YOUR_CALM));
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void answersEachOfManyCallsInOneReadWithOneDataFrameOfTheWholeMessage() throws Exception {
    handshake();
    frames(); // the handshake's
    ByteBuf in = Unpooled.buffer();
    call(in, 1, NacosH2Handler.STREAM_PATH, false, "ConnectionSetupRequest", "{\"labels\":{}}");
    channel.writeInbound(in);
    frames(); // the stream's headers and the server's SetupAckRequest
    in = Unpooled.buffer();
    int calls = 16;
    for (int i = 0; i < calls; i++) {
      call(in, 3 + 2 * i, NacosH2Handler.UNARY_PATH, true, "LongAnswerRequest", "{\"bytes\":3000}");
    }
    channel.writeInbound(in); // one read: the answers go out together at its end

    Map<Integer, List<Frame>> byStream = new TreeMap<>();
    for (Frame frame : decodedFrames()) {
      byStream.computeIfAbsent(frame.streamId(), id -> new ArrayList<>()).add(frame);
    }
    assertThat(byStream).hasSize(calls);
    for (List<Frame> frames : byStream.values()) {
      assertThat(frames).extracting(Frame::type).containsExactly(HEADERS, DATA, HEADERS);
      assertThat(frames.get(2).flags() & END_STREAM).isEqualTo(END_STREAM);
      byte[] message = frames.get(1).payload();
      assertThat(message[0]).isZero();
      assertThat(Unpooled.wrappedBuffer(message).getInt(1)).isEqualTo(message.length - 5);
      Payload answer = PayloadCodec.decode(Arrays.copyOfRange(message, 5, message.length));
      assertThat(answer.type())
          .as(new String(answer.body(), StandardCharsets.UTF_8))
          .isEqualTo("LongAnswerResponse");
      LongAnswerResponse read = codec.decodeAs(LongAnswerResponse.class, answer.body());
      assertThat(read.text).hasSize(3000);
      assertThat(read.requestId).startsWith("r");
    }
  }

  @Test
  void failsACallWhoseAnswerCannotBeEncodedWithInternalAndKeepsTheConnection() throws Exception {
    handshake();
    frames();
    ByteBuf in = Unpooled.buffer();
    call(in, 1, NacosH2Handler.STREAM_PATH, false, "ConnectionSetupRequest", "{\"labels\":{}}");
    channel.writeInbound(in);
    List<Frame> frames = new ArrayList<>(decodedFrames());
    in = Unpooled.buffer();
    call(in, 3, NacosH2Handler.UNARY_PATH, true, "BrokenAnswerRequest", "{\"unknown\":1}");
    call(in, 5, NacosH2Handler.UNARY_PATH, true, "LongAnswerRequest", "{\"bytes\":10}");
    channel.writeInbound(in);
    frames.addAll(decodedFrames());

    // Every header block in order through one decoder, as HPACK's dynamic table requires.
    DefaultHttp2HeadersDecoder hpackIn = new DefaultHttp2HeadersDecoder();
    Http2Headers brokenTrailers = null;
    for (Frame frame : frames) {
      if (frame.type() == HEADERS) {
        Http2Headers headers =
            hpackIn.decodeHeaders(frame.streamId(), Unpooled.wrappedBuffer(frame.payload()));
        if (frame.streamId() == 3) {
          brokenTrailers = headers;
        }
      }
    }
    List<Frame> broken = frames.stream().filter(f -> f.streamId() == 3).toList();
    // Trailers only (a RST_STREAM(NO_ERROR) may follow: the answer is written within the read).
    assertThat(broken.get(0).type()).isEqualTo(HEADERS);
    assertThat(broken.get(0).flags() & END_STREAM).isEqualTo(END_STREAM);
    assertThat(broken).extracting(Frame::type).doesNotContain(DATA);
    assertThat(brokenTrailers.get("grpc-status")).hasToString("13");
    assertThat(frames.stream().filter(f -> f.streamId() == 5))
        .extracting(Frame::type)
        .containsExactly(HEADERS, DATA, HEADERS);
    assertThat(channel.isOpen()).isTrue();
  }

  /**
   * Opens stream {@code id} on {@code path} with one message; {@code end} closes the client side.
   */
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
    String body = json.replaceFirst("\\{", "{\"requestId\":\"r" + id + "\",");
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
    assertThat(frameTypes()).contains(0x4); // the server's SETTINGS
  }

  private void ping() {
    ByteBuf in = Unpooled.buffer();
    frame(in, PING, 0, 0, Unpooled.buffer(8).writeLong(42));
    channel.writeInbound(in);
  }

  private static void frame(ByteBuf out, int type, int flags, int streamId, ByteBuf payload) {
    out.writeMedium(payload.readableBytes()).writeByte(type).writeByte(flags).writeInt(streamId);
    out.writeBytes(payload);
  }

  private List<Integer> frameTypes() {
    List<Integer> types = new ArrayList<>();
    for (long[] frame : frames()) {
      types.add((int) frame[0]);
    }
    return types;
  }

  private record Frame(int type, int flags, int streamId, byte[] payload) {}

  /** Every frame written so far, whole. */
  private List<Frame> decodedFrames() {
    ByteBuf all = Unpooled.buffer();
    for (Object written; (written = channel.readOutbound()) != null; ) {
      ByteBuf buf = (ByteBuf) written;
      all.writeBytes(buf);
      buf.release();
    }
    List<Frame> frames = new ArrayList<>();
    while (all.readableBytes() >= 9) {
      int length = all.readUnsignedMedium();
      int type = all.readUnsignedByte();
      int flags = all.readUnsignedByte();
      int streamId = all.readInt() & Integer.MAX_VALUE;
      frames.add(new Frame(type, flags, streamId, ByteBufUtil.getBytes(all.readSlice(length))));
    }
    all.release();
    return frames;
  }

  /** Every frame written so far: its type, and for GOAWAY its error code. */
  private List<long[]> frames() {
    ByteBuf all = Unpooled.buffer();
    for (Object written; (written = channel.readOutbound()) != null; ) {
      ByteBuf buf = (ByteBuf) written;
      all.writeBytes(buf);
      buf.release();
    }
    List<long[]> frames = new ArrayList<>();
    while (all.readableBytes() >= 9) {
      int length = all.readUnsignedMedium();
      int type = all.readUnsignedByte();
      all.skipBytes(5);
      ByteBuf payload = all.readSlice(length);
      frames.add(
          type == GO_AWAY ? new long[] {type, payload.getUnsignedInt(4)} : new long[] {type});
    }
    all.release();
    return frames;
  }
}
