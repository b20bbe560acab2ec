package io.sluice.server.protocol.grpc;

import static io.sluice.server.protocol.grpc.EmbeddedH2Client.DATA;
import static io.sluice.server.protocol.grpc.EmbeddedH2Client.END_STREAM;
import static io.sluice.server.protocol.grpc.EmbeddedH2Client.GO_AWAY;
import static io.sluice.server.protocol.grpc.EmbeddedH2Client.HEADERS;
import static io.sluice.server.protocol.grpc.EmbeddedH2Client.SETTINGS;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.protocol.grpc.EmbeddedH2Client.Frame;
import io.sluice.server.testing.ManualClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The netty-h2 transport's connection-level policy and answer framing, on an embedded channel with
 * a manual clock.
 */
class NacosH2HandlerTest {
  private static final long ENHANCE_YOUR_CALM = 0xb;

  private final ManualClock clock = new ManualClock();
  private final MessageCodec codec = new MessageCodec();
  private final EmbeddedH2Client client =
      new EmbeddedH2Client(clock, codec, testRouter(codec, clock));
  private final EmbeddedChannel channel = client.channel();

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
    client.close();
  }

  @Test
  void allowsAPingEveryFiveMinutes() {
    handshake();
    for (int i = 0; i < 5; i++) {
      client.ping();
      clock.advance(Duration.ofMinutes(5));
    }
    assertThat(channel.isOpen()).isTrue();
    assertThat(frameTypes()).doesNotContain(GO_AWAY);
  }

  @Test
  void answersPingsFasterThanAllowedWithGoAwayEnhanceYourCalmAfterTwoStrikes() {
    handshake();
    client.ping(); // the first is always allowed
    client.ping(); // strike 1
    client.ping(); // strike 2
    assertThat(channel.isOpen()).isTrue();
    client.ping(); // strike 3: too many
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
    client.call(
        in, 1, NacosH2Handler.STREAM_PATH, false, "ConnectionSetupRequest", "{\"labels\":{}}");
    client.send(in);
    frames(); // the stream's headers and the server's SetupAckRequest
    in = Unpooled.buffer();
    int calls = 16;
    for (int i = 0; i < calls; i++) {
      client.call(
          in, 3 + 2 * i, NacosH2Handler.UNARY_PATH, true, "LongAnswerRequest", "{\"bytes\":3000}");
    }
    client.send(in); // one read: the answers go out together at its end

    Map<Integer, List<Frame>> byStream = new TreeMap<>();
    for (Frame frame : client.frames()) {
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
    client.call(
        in, 1, NacosH2Handler.STREAM_PATH, false, "ConnectionSetupRequest", "{\"labels\":{}}");
    client.send(in);
    List<Frame> frames = new ArrayList<>(client.frames());
    in = Unpooled.buffer();
    client.call(in, 3, NacosH2Handler.UNARY_PATH, true, "BrokenAnswerRequest", "{\"unknown\":1}");
    client.call(in, 5, NacosH2Handler.UNARY_PATH, true, "LongAnswerRequest", "{\"bytes\":10}");
    client.send(in);
    frames.addAll(client.frames());

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

  @Test
  void answersGzipCompressedRequestsAsUncompressedOnesWithUncompressedAnswers() throws Exception {
    handshake();
    frames();
    List<Frame> frames = new ArrayList<>(register());
    ByteBuf in = Unpooled.buffer();
    // gzip: the message compressed.
    client.callHeaders(in, 3, NacosH2Handler.UNARY_PATH, "gzip");
    client.message(in, 3, true, true, gzip(longAnswerRequest(3, 3000)));
    // gzip announced, this message sent uncompressed (the flag is per message).
    client.callHeaders(in, 5, NacosH2Handler.UNARY_PATH, "gzip");
    client.message(in, 5, true, false, longAnswerRequest(5, 3000));
    // identity, spelled out.
    client.callHeaders(in, 7, NacosH2Handler.UNARY_PATH, "identity");
    client.message(in, 7, true, false, longAnswerRequest(7, 3000));
    client.send(in);

    frames.addAll(client.frames());
    Map<Integer, Http2Headers> lastHeaders = lastHeadersByStream(frames);
    for (int id : new int[] {3, 5, 7}) {
      List<Frame> stream = frames.stream().filter(f -> f.streamId() == id).toList();
      assertThat(stream).extracting(Frame::type).containsExactly(HEADERS, DATA, HEADERS);
      assertThat(lastHeaders.get(id).get("grpc-status")).hasToString("0");
      byte[] message = stream.get(1).payload();
      assertThat(message[0]).as("answers are not compressed").isZero();
      Payload answer = PayloadCodec.decode(Arrays.copyOfRange(message, 5, message.length));
      assertThat(answer.type())
          .as(new String(answer.body(), StandardCharsets.UTF_8))
          .isEqualTo("LongAnswerResponse");
      LongAnswerResponse read = codec.decodeAs(LongAnswerResponse.class, answer.body());
      assertThat(read.text).hasSize(3000);
      assertThat(read.requestId).isEqualTo("r" + id);
    }
  }

  @Test
  void refusesAGzipMessageThatInflatesAboveTheLimitAndKeepsServing() throws Exception {
    handshake();
    frames();
    List<Frame> frames = new ArrayList<>(register());
    ByteBuf in = Unpooled.buffer();
    client.callHeaders(in, 3, NacosH2Handler.UNARY_PATH, "gzip");
    byte[] bomb = gzip(new byte[(1 << 20) + 1]); // one byte above the 1 MiB message limit
    assertThat(bomb.length).isLessThan(4096);
    client.message(in, 3, true, true, bomb);
    client.callHeaders(in, 5, NacosH2Handler.UNARY_PATH, "gzip");
    client.message(in, 5, true, true, gzip(longAnswerRequest(5, 10)));
    client.send(in);

    frames.addAll(client.frames());
    Map<Integer, Http2Headers> lastHeaders = lastHeadersByStream(frames);
    assertThat(lastHeaders.get(3).get("grpc-status")).hasToString("8"); // RESOURCE_EXHAUSTED
    assertThat(lastHeaders.get(3).get("grpc-message").toString())
        .contains("exceeds maximum size " + (1 << 20));
    assertThat(frames.stream().filter(f -> f.streamId() == 3))
        .extracting(Frame::type)
        .doesNotContain(DATA);
    assertThat(lastHeaders.get(5).get("grpc-status")).hasToString("0");
    assertThat(channel.isOpen()).isTrue();
  }

  @Test
  void refusesAnotherEncodingWithUnimplementedNamingGzipAndACompressedFlagWithoutOneAsInternal()
      throws Exception {
    handshake();
    frames();
    List<Frame> frames = new ArrayList<>(register());
    ByteBuf in = Unpooled.buffer();
    client.callHeaders(in, 3, NacosH2Handler.UNARY_PATH, "snappy");
    client.message(in, 3, true, true, longAnswerRequest(3, 10));
    client.callHeaders(in, 5, NacosH2Handler.UNARY_PATH, null);
    client.message(in, 5, true, true, gzip(longAnswerRequest(5, 10)));
    client.call(in, 7, NacosH2Handler.UNARY_PATH, true, "LongAnswerRequest", "{\"bytes\":10}");
    client.send(in);

    frames.addAll(client.frames());
    Map<Integer, Http2Headers> lastHeaders = lastHeadersByStream(frames);
    assertThat(lastHeaders.get(3).get("grpc-status")).hasToString("12"); // UNIMPLEMENTED
    assertThat(lastHeaders.get(3).get("grpc-accept-encoding")).hasToString("gzip");
    assertThat(lastHeaders.get(3).get("grpc-message").toString()).contains("snappy");
    assertThat(lastHeaders.get(5).get("grpc-status")).hasToString("13"); // INTERNAL
    assertThat(lastHeaders.get(7).get("grpc-status")).hasToString("0");
    assertThat(channel.isOpen()).isTrue();
  }

  /**
   * Opens the connection's stream with a ConnectionSetupRequest on stream 1, as clients do; returns
   * the frames written (the stream's headers and the server's SetupAckRequest), which the HPACK
   * decoder must read before any later header block.
   */
  private List<Frame> register() throws Exception {
    ByteBuf in = Unpooled.buffer();
    client.call(
        in, 1, NacosH2Handler.STREAM_PATH, false, "ConnectionSetupRequest", "{\"labels\":{}}");
    client.send(in);
    return client.frames();
  }

  private static byte[] longAnswerRequest(int id, int bytes) {
    return EmbeddedH2Client.payload(id, "LongAnswerRequest", "{\"bytes\":" + bytes + "}");
  }

  static byte[] gzip(byte[] bytes) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
      gzip.write(bytes);
    }
    return out.toByteArray();
  }

  /** Every header block in order through one HPACK decoder; the last block of each stream. */
  private static Map<Integer, Http2Headers> lastHeadersByStream(List<Frame> frames)
      throws Exception {
    DefaultHttp2HeadersDecoder hpackIn = new DefaultHttp2HeadersDecoder();
    Map<Integer, Http2Headers> last = new TreeMap<>();
    for (Frame frame : frames) {
      if (frame.type() == HEADERS) {
        last.put(
            frame.streamId(),
            hpackIn.decodeHeaders(frame.streamId(), Unpooled.wrappedBuffer(frame.payload())));
      }
    }
    return last;
  }

  private void handshake() {
    client.handshake();
    assertThat(frameTypes()).contains(SETTINGS); // the server's SETTINGS
  }

  private List<Integer> frameTypes() {
    return client.frames().stream().map(Frame::type).toList();
  }

  /** Every frame written so far: its type, and for GOAWAY its error code. */
  private List<long[]> frames() {
    List<long[]> frames = new ArrayList<>();
    for (Frame frame : client.frames()) {
      frames.add(
          frame.type() == GO_AWAY
              ? new long[] {frame.type(), Unpooled.wrappedBuffer(frame.payload()).getUnsignedInt(4)}
              : new long[] {frame.type()});
    }
    return frames;
  }
}
