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
import io.sluice.server.protocol.ClientFaultLog;
import io.sluice.server.testing.ManualClock;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A client's side of one HTTP/2 connection to a {@link NacosH2Handler} on an embedded channel, for
 * tests of the netty-h2 transport without a socket: writes the client's frames byte for byte
 * (preface, SETTINGS, HPACK-encoded call headers, gRPC messages) and reads back, whole, the frames
 * the handler wrote. One HPACK encoder per connection, as its dynamic table requires.
 */
final class EmbeddedH2Client implements AutoCloseable {
  static final int DATA = 0x0;
  static final int HEADERS = 0x1;
  static final int SETTINGS = 0x4;
  static final int PING = 0x6;
  static final int GO_AWAY = 0x7;
  static final int END_STREAM = 0x1;
  static final int END_HEADERS = 0x4;

  /** One frame the handler wrote: its header's fields and its whole payload. */
  record Frame(int type, int flags, int streamId, byte[] payload) {}

  private final EmbeddedChannel channel;
  private final DefaultHttp2HeadersEncoder hpack = new DefaultHttp2HeadersEncoder();

  /**
   * A connection to a handler that routes unary calls with {@code router}, registers up to 10
   * connections and takes messages of up to 1 MiB; {@code codec} learns {@code
   * ConnectionSetupRequest} here.
   */
  EmbeddedH2Client(ManualClock clock, MessageCodec codec, RequestRouter router) {
    ClientFaultLog faults = new ClientFaultLog(clock, Runnable::run);
    codec.register(ConnectionMessages.ConnectionSetupRequest.class);
    ConnectionRegistry registry = new ConnectionRegistry(clock, codec, 10, 10);
    NacosCalls calls = new NacosCalls(registry, router, codec, () -> true, clock, faults);
    channel =
        new EmbeddedChannel(
            NacosH2Handler.create(calls, new HandshakeGate(10, 10, 10, faults), clock, 1 << 20));
  }

  EmbeddedChannel channel() {
    return channel;
  }

  /** Sends the client's preface and first SETTINGS; the handler must keep the connection. */
  void handshake() {
    ByteBuf in = Unpooled.buffer();
    in.writeBytes("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    frame(in, SETTINGS, 0, 0, Unpooled.EMPTY_BUFFER);
    send(in);
    assertThat(channel.isOpen()).isTrue();
  }

  /** Hands {@code in}, frames written with {@link #call}, to the handler. */
  void send(ByteBuf in) {
    channel.writeInbound(in);
  }

  /**
   * Writes into {@code out} the frames that open stream {@code id} on {@code path} with one message
   * of {@code type}: {@code json} with {@code "requestId":"r<id>"} put first. {@code end} closes
   * the client's side.
   */
  void call(ByteBuf out, int id, String path, boolean end, String type, String json)
      throws Http2Exception {
    callHeaders(out, id, path, null);
    message(out, id, end, false, payload(id, type, json));
  }

  /**
   * Writes into {@code out} the headers that open stream {@code id}, with {@code grpc-encoding}.
   */
  void callHeaders(ByteBuf out, int id, String path, String encoding) throws Http2Exception {
    Http2Headers headers =
        new DefaultHttp2Headers()
            .method("POST")
            .scheme("http")
            .path(path)
            .authority("localhost")
            .set("content-type", "application/grpc")
            .set("te", "trailers");
    if (encoding != null) {
      headers.set("grpc-encoding", encoding);
    }
    ByteBuf block = Unpooled.buffer();
    hpack.encodeHeaders(id, headers, block);
    frame(out, HEADERS, END_HEADERS, id, block);
  }

  /** A request's payload bytes as {@link #call} sends them, its id {@code "r<id>"}. */
  static byte[] payload(int id, String type, String json) {
    String body = json.replaceFirst("\\{", "{\"requestId\":\"r" + id + "\",").replace(",}", "}");
    return PayloadCodec.encode(Payload.of(type, body.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * Writes into {@code out} one gRPC message of {@code bytes} on stream {@code id}, its prefix's
   * compressed flag set when {@code compressed}; {@code end} closes the client's side.
   */
  void message(ByteBuf out, int id, boolean end, boolean compressed, byte[] bytes) {
    ByteBuf data =
        Unpooled.buffer().writeByte(compressed ? 1 : 0).writeInt(bytes.length).writeBytes(bytes);
    frame(out, DATA, end ? END_STREAM : 0, id, data);
  }

  /** Sends a PING. */
  void ping() {
    ByteBuf in = Unpooled.buffer();
    frame(in, PING, 0, 0, Unpooled.buffer(8).writeLong(42));
    send(in);
  }

  /** Writes one frame into {@code out}; releases {@code payload}. */
  private static void frame(ByteBuf out, int type, int flags, int streamId, ByteBuf payload) {
    out.writeMedium(payload.readableBytes()).writeByte(type).writeByte(flags).writeInt(streamId);
    out.writeBytes(payload);
    payload.release();
  }

  /**
   * Every frame the handler wrote since the last call, in order; the channel's buffers released.
   */
  List<Frame> frames() {
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

  @Override
  public void close() {
    channel.finishAndReleaseAll();
  }
}
