package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.testing.FreePorts;
import io.sluice.server.testing.GrpcTransportUnderTest;
import io.sluice.server.testing.NacosWireClient;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input at the HTTP/2 and gRPC framing level, run against the transport under test ({@link
 * GrpcTransportUnderTest}): each gets a clear gRPC status or a closed socket, and the server keeps
 * serving everyone else. Some cases write raw HTTP/2 frames, since a gRPC client never sends them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcHostileInputIT {
  /** Small, so the message limit (twice this plus 64 KiB) is quick to exceed. */
  private static final long MAX_CONTENT_BYTES = 1024;

  private static final int MAX_MESSAGE_BYTES = (int) (MAX_CONTENT_BYTES * 2 + 64 * 1024);

  @TempDir static Path dataDir;

  private SluiceServer server;

  @BeforeAll
  void start() {
    server =
        FreePorts.startServer(
            ServerOptions.builder()
                .dataDir(dataDir)
                .maxContentBytes(MAX_CONTENT_BYTES)
                .grpcTransport(GrpcTransportUnderTest.get())
                .ioTransport(GrpcTransportUnderTest.io()));
    assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
  }

  @AfterAll
  void stop() {
    server.close();
  }

  @Test
  void answersAnUnknownMethodWithUnimplemented() {
    StatusRuntimeException failure =
        call("Request/somethingElse", serverCheck(), CallOptions.DEFAULT);
    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(failure.getStatus().getDescription()).contains("Request/somethingElse");
    assertStillServing();
  }

  @Test
  void refusesAMessageAboveTheLimitBeforeReadingItAndKeepsServing() {
    byte[] tooLarge = new byte[MAX_MESSAGE_BYTES + 1];
    StatusRuntimeException failure = call("Request/request", tooLarge, CallOptions.DEFAULT);
    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(failure.getStatus().getDescription()).contains(Integer.toString(MAX_MESSAGE_BYTES));
    assertStillServing();
  }

  @Test
  void answersAGzipCompressedMessage() throws Exception {
    ManagedChannel channel = channel();
    try {
      CallOptions gzip =
          CallOptions.DEFAULT.withCompression("gzip").withDeadlineAfter(10, TimeUnit.SECONDS);
      byte[] answer =
          ClientCalls.blockingUnaryCall(
              channel, NacosWireClient.rawUnary("Request/request"), gzip, serverCheck());
      assertThat(PayloadCodec.decode(answer).type()).isEqualTo("ServerCheckResponse");
    } finally {
      channel.shutdownNow();
    }
    assertStillServing();
  }

  /**
   * A gzip "bomb": a few hundred bytes on the wire that inflate one byte past the message limit.
   * The call fails with RESOURCE_EXHAUSTED, as one sent uncompressed at that size would.
   */
  @Test
  void refusesAGzipMessageThatInflatesAboveTheLimitAndKeepsServing() {
    byte[] inflatesTooLarge = new byte[MAX_MESSAGE_BYTES + 1];
    StatusRuntimeException failure =
        call("Request/request", inflatesTooLarge, CallOptions.DEFAULT.withCompression("gzip"));
    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(failure.getStatus().getDescription()).contains(Integer.toString(MAX_MESSAGE_BYTES));
    assertStillServing();
  }

  /**
   * An encoding the server does not read is answered UNIMPLEMENTED (gRPC's compression spec); the
   * netty-h2 transport also names the ones it accepts in {@code grpc-accept-encoding}.
   */
  @Test
  void refusesAnEncodingItDoesNotReadWithUnimplemented() throws Exception {
    try (RawHttp2 raw = new RawHttp2(server.grpcPort())) {
      raw.headers(1, "/Request/request", false, "snappy");
      byte[] check = serverCheck();
      ByteBuf whole = Unpooled.buffer();
      whole.writeByte(1).writeInt(check.length).writeBytes(check);
      raw.data(1, whole, true);
      Http2Headers trailers = raw.trailersOf(1);
      assertThat(trailers.get("grpc-status")).hasToString("12");
      if (GrpcTransportUnderTest.get() == GrpcTransport.NETTY_H2) {
        assertThat(trailers.get("grpc-accept-encoding")).hasToString("gzip");
      }
    }
    assertStillServing();
  }

  /** The compressed flag on a call without {@code grpc-encoding}: nothing to read it by. */
  @Test
  void failsACompressedMessageOnACallWithoutAnEncodingWithInternal() throws Exception {
    try (RawHttp2 raw = new RawHttp2(server.grpcPort())) {
      raw.headers(1, "/Request/request", false);
      byte[] check = serverCheck();
      ByteBuf whole = Unpooled.buffer();
      whole.writeByte(1).writeInt(check.length).writeBytes(check);
      raw.data(1, whole, true);
      assertThat(raw.grpcStatusOf(1)).isEqualTo("13");
    }
    assertStillServing();
  }

  @Test
  void closesAConnectionThatSpeaksGarbageInsteadOfHttp2() throws Exception {
    try (Socket socket = new Socket("127.0.0.1", server.grpcPort())) {
      socket.setSoTimeout(10_000);
      byte[] garbage = new byte[4096];
      for (int i = 0; i < garbage.length; i++) {
        garbage[i] = (byte) (i * 31 + 7);
      }
      socket.getOutputStream().write(garbage);
      socket.getOutputStream().flush();
      InputStream in = socket.getInputStream();
      // Whatever the server says first (a GOAWAY at most), it then closes the socket.
      long read = 0;
      try {
        while (in.read() >= 0) {
          read++;
          assertThat(read).isLessThan(1024);
        }
      } catch (IOException reset) {
        // Closed with a reset: closed all the same.
      }
    }
    assertStillServing();
  }

  /**
   * Streams that announce a large message and are reset before it arrives hold nothing: after
   * twenty of them (their announced bytes together far above any per-connection buffer), a call on
   * the same connection is answered normally.
   */
  @Test
  void forgetsStreamsResetInTheMiddleOfAMessage() throws Exception {
    try (RawHttp2 raw = new RawHttp2(server.grpcPort())) {
      int streamId = 1;
      for (int i = 0; i < 20; i++, streamId += 2) {
        raw.headers(streamId, "/Request/request", false);
        ByteBuf partial = Unpooled.buffer();
        partial.writeByte(0).writeInt(MAX_MESSAGE_BYTES - 1).writeZero(1000);
        raw.data(streamId, partial, false);
        raw.rstStream(streamId, 0x8 /* CANCEL */);
      }
      raw.headers(streamId, "/Request/request", false);
      byte[] check = serverCheck();
      ByteBuf whole = Unpooled.buffer();
      whole.writeByte(0).writeInt(check.length).writeBytes(check);
      raw.data(streamId, whole, true);
      assertThat(raw.grpcStatusOf(streamId)).isEqualTo("0");
    }
    assertStillServing();
  }

  @Test
  void answersAStreamThatEndsInTheMiddleOfAMessageWithAnError() throws Exception {
    try (RawHttp2 raw = new RawHttp2(server.grpcPort())) {
      raw.headers(1, "/Request/request", false);
      ByteBuf partial = Unpooled.buffer();
      partial.writeByte(0).writeInt(100).writeZero(10);
      raw.data(1, partial, true);
      assertThat(raw.grpcStatusOf(1)).isNotEqualTo("0");
    }
    assertStillServing();
  }

  private void assertStillServing() {
    try (NacosWireClient client =
        NacosWireClient.connect("127.0.0.1", server.grpcPort(), "naming")) {
      assertThat(
              client
                  .request("HealthCheckRequest", "{}")
                  .get(10, TimeUnit.SECONDS)
                  .path("resultCode")
                  .asInt())
          .isEqualTo(200);
    } catch (Exception e) {
      throw new AssertionError("the server stopped serving", e);
    }
  }

  private static byte[] serverCheck() {
    return PayloadCodec.encode(
        Payload.of("ServerCheckRequest", "{}".getBytes(StandardCharsets.UTF_8)));
  }

  private ManagedChannel channel() {
    return NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort())
        .usePlaintext()
        .maxInboundMessageSize(16 << 20)
        .build();
  }

  private StatusRuntimeException call(String fullMethod, byte[] request, CallOptions options) {
    ManagedChannel channel = channel();
    try {
      StatusRuntimeException failure =
          catchThrowableOfType(
              StatusRuntimeException.class,
              () ->
                  ClientCalls.blockingUnaryCall(
                      channel,
                      NacosWireClient.rawUnary(fullMethod),
                      options.withDeadlineAfter(10, TimeUnit.SECONDS),
                      request));
      assertThat(failure).as("the call must fail").isNotNull();
      return failure;
    } finally {
      channel.shutdownNow();
    }
  }

  /**
   * A minimal HTTP/2 client over a plain socket: writes the frames a test chooses and reads the
   * server's (HPACK by Netty's encoder and decoder), enough to send what no gRPC client would.
   */
  private static final class RawHttp2 implements AutoCloseable {
    private static final byte[] PREFACE =
        "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;
    private final DefaultHttp2HeadersEncoder hpackOut = new DefaultHttp2HeadersEncoder();
    private final DefaultHttp2HeadersDecoder hpackIn = new DefaultHttp2HeadersDecoder(false);

    RawHttp2(int port) throws IOException {
      socket = new Socket("127.0.0.1", port);
      socket.setSoTimeout(10_000);
      out = socket.getOutputStream();
      in = new DataInputStream(socket.getInputStream());
      out.write(PREFACE);
      frame(0x4, 0, 0, Unpooled.EMPTY_BUFFER); // SETTINGS, none changed
    }

    void headers(int streamId, String path, boolean endStream) throws Exception {
      headers(streamId, path, endStream, null);
    }

    /** Opens a call, with {@code grpc-encoding} when {@code encoding} is not null. */
    void headers(int streamId, String path, boolean endStream, String encoding) throws Exception {
      Http2Headers headers =
          new DefaultHttp2Headers()
              .method("POST")
              .scheme("http")
              .authority("127.0.0.1")
              .path(path)
              .add("content-type", "application/grpc")
              .add("te", "trailers");
      if (encoding != null) {
        headers.add("grpc-encoding", encoding);
      }
      ByteBuf block = Unpooled.buffer();
      hpackOut.encodeHeaders(streamId, headers, block);
      frame(0x1, 0x4 | (endStream ? 0x1 : 0), streamId, block);
    }

    void data(int streamId, ByteBuf data, boolean endStream) throws IOException {
      frame(0x0, endStream ? 0x1 : 0, streamId, data);
    }

    void rstStream(int streamId, int errorCode) throws IOException {
      frame(0x3, 0, streamId, Unpooled.buffer(4).writeInt(errorCode));
    }

    /**
     * Reads the server's frames until {@code streamId}'s grpc-status; HEADERS of all are decoded.
     */
    String grpcStatusOf(int streamId) throws Exception {
      return trailersOf(streamId).get("grpc-status").toString();
    }

    /**
     * Reads the server's frames until {@code streamId}'s block with a grpc-status, and returns it.
     */
    Http2Headers trailersOf(int streamId) throws Exception {
      while (true) {
        int length;
        int type;
        int flags;
        int id;
        try {
          length =
              (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
          type = in.readUnsignedByte();
          flags = in.readUnsignedByte();
          id = in.readInt() & 0x7fffffff;
        } catch (EOFException | SocketTimeoutException e) {
          throw new AssertionError("no grpc-status for stream " + streamId, e);
        }
        byte[] payload = new byte[length];
        in.readFully(payload);
        if (type == 0x4 && (flags & 0x1) == 0) {
          frame(0x4, 0x1, 0, Unpooled.EMPTY_BUFFER); // acknowledge the server's SETTINGS
        }
        if (type == 0x1) {
          Http2Headers headers = hpackIn.decodeHeaders(id, Unpooled.wrappedBuffer(payload));
          CharSequence status = headers.get("grpc-status");
          if (id == streamId && status != null) {
            return headers;
          }
        }
        if (type == 0x7) {
          throw new AssertionError("the server sent GOAWAY before answering stream " + streamId);
        }
      }
    }

    private void frame(int type, int flags, int streamId, ByteBuf payload) throws IOException {
      int length = payload.readableBytes();
      byte[] header = {
        (byte) (length >>> 16),
        (byte) (length >>> 8),
        (byte) length,
        (byte) type,
        (byte) flags,
        (byte) (streamId >>> 24),
        (byte) (streamId >>> 16),
        (byte) (streamId >>> 8),
        (byte) streamId
      };
      out.write(header);
      byte[] bytes = new byte[length];
      payload.readBytes(bytes);
      out.write(bytes);
      out.flush();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
