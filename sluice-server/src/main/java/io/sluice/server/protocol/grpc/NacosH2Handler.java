package io.sluice.server.protocol.grpc;

import io.grpc.Status;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.DefaultHttp2Connection;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2RemoteFlowController;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Flags;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.UniformStreamByteDistributor;
import io.netty.util.AsciiString;
import io.sluice.server.clock.ServerClock;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP/2 connection of the {@link GrpcTransport#NETTY_H2} transport: Netty's HTTP/2 codec
 * (HPACK, frames, flow control, the stream map) with a frame listener that knows exactly Nacos's
 * two gRPC methods. {@code /Request/request} gathers one message and hands it to {@link
 * NacosCalls#unary}; {@code /BiRequestStream/requestBiStream} is the connection's {@link
 * PushStream}; any other path is answered UNIMPLEMENTED. A call is answered with one HEADERS, one
 * DATA (the gRPC prefix, then the payload written straight into one pooled buffer) and one trailers
 * HEADERS.
 *
 * <p>Encodings: a request may be sent uncompressed ({@code grpc-encoding} absent or {@code
 * identity}) or with {@code grpc-encoding: gzip}, whose messages (the compressed flag set) are
 * inflated by {@link GzipMessageDecoder} to at most {@code maxMessageBytes}; a message above that
 * fails its call with RESOURCE_EXHAUSTED. Any other encoding is answered UNIMPLEMENTED with {@code
 * grpc-accept-encoding: gzip}, as gRPC specifies. Answers are never compressed.
 *
 * <p>Bounds: at most {@value #MAX_CONCURRENT_STREAMS} streams at once (SETTINGS; more are refused
 * by the codec), a header list of at most {@value #MAX_HEADER_LIST_BYTES} bytes, one message of at
 * most {@code maxMessageBytes} per call (a larger announced length fails the call with
 * RESOURCE_EXHAUSTED before any of it is kept), and at most {@code maxBufferedBytes} of partly
 * received messages per connection; RST_STREAM floods are cut by the codec ({@value
 * #MAX_RESETS_PER_WINDOW} per {@value #RESET_WINDOW_SECONDS} s). Pings more often than every
 * {@value NettyH2Server#PERMITTED_PING_INTERVAL_MINUTES} minutes are answered with GOAWAY
 * ENHANCE_YOUR_CALM after {@value #MAX_PING_STRIKES} strikes, as grpc-java does.
 *
 * <p>Concurrency: everything here runs on the connection's event loop except {@link UnaryCall}'s
 * answers and {@link StreamCall}'s sends and close, which may come from any thread. Those are
 * handed to the loop through a {@link LoopBatch}, which writes a burst of them with one flush; what
 * can be outstanding there is bounded: one answer per open stream ({@value
 * #MAX_CONCURRENT_STREAMS}), the connection's unanswered pushes (1,024) and one close per stream.
 * The other fields are the loop's alone.
 */
final class NacosH2Handler extends Http2ConnectionHandler implements Http2FrameListener {
  static final String UNARY_PATH = "/Request/request";
  static final String STREAM_PATH = "/BiRequestStream/requestBiStream";
  static final int MAX_CONCURRENT_STREAMS = 100;
  static final int MAX_HEADER_LIST_BYTES = 8192;
  static final int MAX_RESETS_PER_WINDOW = 200;
  static final int RESET_WINDOW_SECONDS = 30;
  static final int MAX_PING_STRIKES = 2;
  static final long GRACEFUL_SHUTDOWN_MILLIS = 1000;

  /** Per-stream (SETTINGS) and connection receive window, as grpc-java's default. */
  private static final int FLOW_CONTROL_WINDOW = 1 << 20;

  private static final int PREFIX_BYTES = PayloadCodec.GRPC_PREFIX_BYTES;
  private static final AsciiString CONTENT_TYPE = AsciiString.cached("content-type");
  private static final AsciiString GRPC_CONTENT_TYPE = AsciiString.cached("application/grpc");
  private static final AsciiString GRPC_ENCODING = AsciiString.cached("grpc-encoding");
  private static final AsciiString GRPC_STATUS = AsciiString.cached("grpc-status");
  private static final AsciiString GRPC_MESSAGE = AsciiString.cached("grpc-message");
  private static final AsciiString GRPC_ACCEPT_ENCODING =
      AsciiString.cached("grpc-accept-encoding");
  private static final AsciiString IDENTITY = AsciiString.cached("identity");
  private static final AsciiString GZIP = AsciiString.cached(GzipMessageDecoder.GZIP);
  private static final AsciiString POST = AsciiString.cached("POST");

  /** Written for every answer; never modified, so shared by all connections. */
  private static final Http2Headers RESPONSE_HEADERS =
      new DefaultHttp2Headers()
          .status(HttpResponseStatus.OK.codeAsText())
          .set(CONTENT_TYPE, GRPC_CONTENT_TYPE);

  private static final Http2Headers OK_TRAILERS =
      new DefaultHttp2Headers().set(GRPC_STATUS, AsciiString.cached("0"));

  private final NacosCalls calls;
  private final HandshakeGate gate;
  private final ServerClock clock;
  private final int maxMessageBytes;
  private final long maxBufferedBytes;
  private final Http2Connection.PropertyKey callKey;

  private ChannelHandlerContext context;
  private String connectionId;
  private boolean handshaked;

  /**
   * True while frames are handled: what is written then is flushed once at the read's end (as what
   * a {@link LoopBatch} drain writes is flushed at the drain's end).
   */
  private boolean reading;

  /** Writes handed over by other threads; set with the context. */
  private LoopBatch fromOtherThreads;

  private long bufferedBytes;
  private long lastValidPingNanos;
  private boolean pingSinceReset;
  private int pingStrikes;

  private NacosH2Handler(
      Http2ConnectionDecoder decoder,
      Http2ConnectionEncoder encoder,
      Http2Settings initialSettings,
      NacosCalls calls,
      HandshakeGate gate,
      ServerClock clock,
      int maxMessageBytes) {
    super(decoder, encoder, initialSettings);
    this.calls = calls;
    this.gate = gate;
    this.clock = clock;
    this.maxMessageBytes = maxMessageBytes;
    this.maxBufferedBytes = 8L * maxMessageBytes;
    this.callKey = connection().newKey();
    // Streams the client may open, enforced from the start rather than only once the client
    // acknowledges our SETTINGS (which is when Netty would apply them).
    connection().remote().maxActiveStreams(MAX_CONCURRENT_STREAMS);
    connection()
        .addListener(
            new Http2ConnectionAdapter() {
              @Override
              public void onStreamClosed(Http2Stream stream) {
                H2Call call = stream.getProperty(callKey);
                if (call != null) {
                  call.streamClosed();
                }
              }
            });
  }

  /** A handler for one new connection. */
  static NacosH2Handler create(
      NacosCalls calls, HandshakeGate gate, ServerClock clock, int maxMessageBytes) {
    return new Builder(calls, gate, clock, maxMessageBytes).build();
  }

  /** Whether the client's preface and first SETTINGS have arrived. */
  boolean handshaked() {
    return handshaked;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    this.context = ctx;
    this.fromOtherThreads = new LoopBatch(ctx.executor(), () -> flush(ctx));
    super.handlerAdded(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    try {
      super.channelInactive(ctx); // closes every stream first: their calls end with it
    } finally {
      calls.transportClosed(connectionId);
    }
  }

  /**
   * Ends every stream call with UNAVAILABLE (the clients reconnect elsewhere) and closes the
   * connection: GOAWAY, then unary calls in flight get up to {@value #GRACEFUL_SHUTDOWN_MILLIS} ms.
   */
  void shutDown() {
    List<StreamCall> open = new ArrayList<>();
    try {
      connection()
          .forEachActiveStream(
              stream -> {
                if (stream.getProperty(callKey) instanceof StreamCall call) {
                  open.add(call);
                }
                return true;
              });
    } catch (Http2Exception cannotHappen) {
      // The visitor throws nothing.
    }
    for (StreamCall call : open) {
      call.close(Status.Code.UNAVAILABLE, "server is shutting down");
    }
    context.channel().close(); // through this handler: GOAWAY and the graceful wait
  }

  // ---- frames ----

  @Override
  public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings)
      throws Http2Exception {
    if (handshaked) {
      return;
    }
    handshaked = true;
    SocketAddress remote = ctx.channel().remoteAddress();
    connectionId = calls.newConnectionId(remote);
    gate.handshaked(remote, ctx.channel().localAddress());
    Http2Stream whole = connection().connectionStream();
    connection()
        .local()
        .flowController()
        .incrementWindowSize(
            whole, FLOW_CONTROL_WINDOW - connection().local().flowController().windowSize(whole));
  }

  @Override
  public void onHeadersRead(
      ChannelHandlerContext ctx,
      int streamId,
      Http2Headers headers,
      int padding,
      short weight,
      boolean exclusive,
      int streamDependency,
      boolean endOfStream) {
    onHeadersRead(ctx, streamId, headers, padding, endOfStream);
  }

  @Override
  public void onHeadersRead(
      ChannelHandlerContext ctx,
      int streamId,
      Http2Headers headers,
      int padding,
      boolean endOfStream) {
    reading = true;
    try {
      Http2Stream stream = connection().stream(streamId);
      if (stream == null) {
        return;
      }
      H2Call existing = stream.getProperty(callKey);
      if (existing != null) {
        // Trailers from the client: they end its side of the call.
        if (endOfStream) {
          existing.halfClosed();
        }
        return;
      }
      resetPingStrikes();
      CharSequence encoding = headers.get(GRPC_ENCODING);
      Refusal refusal = Refusal.of(headers, encoding);
      if (refusal != null) {
        refuse(stream, refusal);
        return;
      }
      boolean gzip = encoding != null && AsciiString.contentEqualsIgnoreCase(GZIP, encoding);
      CharSequence path = headers.path();
      H2Call call =
          AsciiString.contentEquals(UNARY_PATH, path)
              ? new UnaryCall(streamId, gzip)
              : new StreamCall(streamId, gzip);
      stream.setProperty(callKey, call);
      call.opened();
      if (endOfStream) {
        call.halfClosed();
      }
    } finally {
      reading = false;
    }
  }

  /**
   * Why a call is not served: 405 for another HTTP method and 415 for another content type (as
   * grpc-java answers them), UNIMPLEMENTED for another path or an encoding other than identity and
   * gzip (then naming those it accepts, as gRPC's compression spec asks).
   */
  private record Refusal(
      int httpStatus, Status.Code code, String description, boolean namesAcceptedEncodings) {
    Refusal(int httpStatus, Status.Code code, String description) {
      this(httpStatus, code, description, false);
    }

    /**
     * The refusal of a call with these headers and {@code grpc-encoding}, or null when it is one of
     * the two methods in an encoding served.
     */
    static Refusal of(Http2Headers headers, CharSequence encoding) {
      CharSequence method = headers.method();
      if (method == null || !AsciiString.contentEquals(POST, method)) {
        return new Refusal(405, Status.Code.INTERNAL, "Method '" + method + "' is not supported");
      }
      CharSequence contentType = headers.get(CONTENT_TYPE);
      if (contentType == null
          || !AsciiString.regionMatches(
              contentType, true, 0, GRPC_CONTENT_TYPE, 0, GRPC_CONTENT_TYPE.length())) {
        return new Refusal(
            415, Status.Code.INTERNAL, "Content-Type '" + contentType + "' is not supported");
      }
      CharSequence path = headers.path();
      if (path == null
          || !(AsciiString.contentEquals(UNARY_PATH, path)
              || AsciiString.contentEquals(STREAM_PATH, path))) {
        String name = path == null ? "" : path.toString();
        return new Refusal(
            200,
            Status.Code.UNIMPLEMENTED,
            "Method not found: " + (name.startsWith("/") ? name.substring(1) : name));
      }
      if (encoding != null
          && !AsciiString.contentEqualsIgnoreCase(IDENTITY, encoding)
          && !AsciiString.contentEqualsIgnoreCase(GZIP, encoding)) {
        return new Refusal(
            200,
            Status.Code.UNIMPLEMENTED,
            "grpc-encoding " + encoding + " is not supported; accepted: gzip, identity",
            true);
      }
      return null;
    }
  }

  /**
   * Answers a call that is not served with trailers only; the client's further frames are dropped.
   */
  private void refuse(Http2Stream stream, Refusal refusal) {
    Http2Headers trailers =
        new DefaultHttp2Headers()
            .status(AsciiString.of(Integer.toString(refusal.httpStatus())))
            .set(CONTENT_TYPE, GRPC_CONTENT_TYPE)
            .set(GRPC_STATUS, Integer.toString(refusal.code().value()))
            .set(GRPC_MESSAGE, GrpcStatusMessages.percentEncode(refusal.description()));
    if (refusal.namesAcceptedEncodings()) {
      trailers.set(GRPC_ACCEPT_ENCODING, GZIP);
    }
    boolean clientStillSending = stream.state().remoteSideOpen();
    encoder().writeHeaders(context, stream.id(), trailers, 0, true, context.newPromise());
    if (clientStillSending) {
      resetStream(context, stream.id(), Http2Error.NO_ERROR.code(), context.newPromise());
    }
  }

  @Override
  public int onDataRead(
      ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
    int processed = data.readableBytes() + padding;
    reading = true;
    try {
      resetPingStrikes();
      Http2Stream stream = connection().stream(streamId);
      H2Call call = stream == null ? null : stream.getProperty(callKey);
      if (call != null) {
        call.read(data);
        if (endOfStream) {
          call.halfClosed();
        }
      }
    } finally {
      reading = false;
    }
    return processed;
  }

  @Override
  public void onPingRead(ChannelHandlerContext ctx, long data) {
    // The codec acknowledges the ping itself; here only the keep-alive policy is enforced.
    long now = clock.nanoTime();
    if (!pingSinceReset
        || now - lastValidPingNanos
            >= TimeUnit.MINUTES.toNanos(NettyH2Server.PERMITTED_PING_INTERVAL_MINUTES)) {
      pingSinceReset = true;
      lastValidPingNanos = now;
      return;
    }
    if (++pingStrikes > MAX_PING_STRIKES) {
      calls.faults().note("gRPC connection closed", remoteIp() + ": too_many_pings");
      goAway(
              ctx,
              connection().remote().lastStreamCreated(),
              Http2Error.ENHANCE_YOUR_CALM.code(),
              ByteBufUtil.writeAscii(ctx.alloc(), "too_many_pings"),
              ctx.newPromise())
          .addListener(ChannelFutureListener.CLOSE);
      flush(ctx);
    }
  }

  /** Data or headers exchanged: pings are counted afresh, as grpc-java's enforcer does. */
  private void resetPingStrikes() {
    pingSinceReset = false;
    pingStrikes = 0;
  }

  @Override
  public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
    // The codec closes the stream next; its call ends in onStreamClosed.
  }

  @Override
  public void onPriorityRead(
      ChannelHandlerContext ctx,
      int streamId,
      int streamDependency,
      short weight,
      boolean exclusive) {}

  @Override
  public void onSettingsAckRead(ChannelHandlerContext ctx) {}

  @Override
  public void onPingAckRead(ChannelHandlerContext ctx, long data) {}

  @Override
  public void onPushPromiseRead(
      ChannelHandlerContext ctx,
      int streamId,
      int promisedStreamId,
      Http2Headers headers,
      int padding) {}

  @Override
  public void onGoAwayRead(
      ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {}

  @Override
  public void onWindowUpdateRead(
      ChannelHandlerContext ctx, int streamId, int windowSizeIncrement) {}

  @Override
  public void onUnknownFrame(
      ChannelHandlerContext ctx, byte frameType, int streamId, Http2Flags flags, ByteBuf payload) {}

  // ---- faults: one rate-limited line each, never a stack trace ----

  @Override
  protected void onConnectionError(
      ChannelHandlerContext ctx, boolean outbound, Throwable cause, Http2Exception http2Ex) {
    if (!(cause instanceof IOException)) {
      calls
          .faults()
          .note(
              "gRPC connection closed on an HTTP/2 error",
              remoteIp() + ": " + (http2Ex != null ? http2Ex.getMessage() : cause.getMessage()));
    }
    super.onConnectionError(ctx, outbound, cause, http2Ex);
  }

  @Override
  protected void onStreamError(
      ChannelHandlerContext ctx,
      boolean outbound,
      Throwable cause,
      Http2Exception.StreamException http2Ex) {
    if (http2Ex.error() != Http2Error.STREAM_CLOSED) {
      // STREAM_CLOSED: frames still in flight for a call this side already ended; not a fault.
      calls
          .faults()
          .note("gRPC stream reset on an HTTP/2 error", remoteIp() + ": " + http2Ex.getMessage());
    }
    super.onStreamError(ctx, outbound, cause, http2Ex);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
    if (Http2CodecUtil.getEmbeddedHttp2Exception(cause) != null) {
      super.exceptionCaught(ctx, cause);
      return;
    }
    // TLS failures and socket errors: not the codec's to answer, and never logged with a trace.
    if (!(cause instanceof IOException)) {
      calls.faults().note("gRPC connection failed", cause);
    }
    ctx.close();
  }

  private String remoteIp() {
    SocketAddress remote = context == null ? null : context.channel().remoteAddress();
    return String.valueOf(remote);
  }

  // ---- calls ----

  private void flushUnlessBusy() {
    if (!reading && !fromOtherThreads.draining()) {
      flush(context);
    }
  }

  /**
   * Runs {@code task} on this connection's event loop: now if already there (the task flushes
   * unless a read or a drain is under way), else in the loop's next {@link LoopBatch} drain.
   * Returns false when the loop refuses work (it is shutting down): the task may then never run.
   */
  private boolean onLoop(Runnable task) {
    if (context.executor().inEventLoop()) {
      task.run();
      return true;
    }
    return fromOtherThreads.execute(task);
  }

  /**
   * One call on one stream: reads its messages (prefix, then exactly the announced bytes, inflated
   * when the prefix says compressed) and ends it once, with an answer or a status. Loop-confined
   * except where subclasses say.
   */
  private abstract class H2Call {
    final int streamId;

    /** The call's {@code grpc-encoding} is gzip: its messages may come compressed. */
    private final boolean gzip;

    private final byte[] prefix = new byte[PREFIX_BYTES];
    private int prefixRead;
    private byte[] message;
    private int messageRead;
    private boolean compressed;

    /** The call's end was written (or the stream is gone): later frames and answers are dropped. */
    boolean done;

    boolean headersSent;

    H2Call(int streamId, boolean gzip) {
      this.streamId = streamId;
      this.gzip = gzip;
    }

    /** The call's headers arrived. */
    void opened() {}

    abstract void onMessage(Payload message);

    /** The client finished sending, every message read. */
    abstract void onHalfClose();

    /** The stream closed, by either side or with the connection. */
    void streamClosed() {
      done = true;
      dropPartialMessage();
    }

    final void read(ByteBuf data) {
      while (!done && data.isReadable()) {
        if (message == null) {
          int n = Math.min(PREFIX_BYTES - prefixRead, data.readableBytes());
          data.readBytes(prefix, prefixRead, n);
          prefixRead += n;
          if (prefixRead < PREFIX_BYTES) {
            return;
          }
          prefixRead = 0;
          compressed = (prefix[0] & 1) != 0;
          if (compressed && !gzip) {
            // As grpc-java: the flag without an encoding to read it by is the client's bug.
            fail(
                Status.Code.INTERNAL,
                "compressed gRPC message without grpc-encoding (accepted: gzip, identity)");
            return;
          }
          long length =
              ((prefix[1] & 0xffL) << 24)
                  | ((prefix[2] & 0xff) << 16)
                  | ((prefix[3] & 0xff) << 8)
                  | (prefix[4] & 0xff);
          if (length > maxMessageBytes) {
            fail(
                Status.Code.RESOURCE_EXHAUSTED,
                "gRPC message exceeds maximum size " + maxMessageBytes + ": " + length);
            return;
          }
          if (bufferedBytes + length > maxBufferedBytes) {
            fail(
                Status.Code.RESOURCE_EXHAUSTED,
                "too many message bytes in flight on this connection (max "
                    + maxBufferedBytes
                    + ")");
            return;
          }
          bufferedBytes += length;
          message = new byte[(int) length];
          messageRead = 0;
        }
        int n = Math.min(message.length - messageRead, data.readableBytes());
        data.readBytes(message, messageRead, n);
        messageRead += n;
        if (messageRead == message.length) {
          byte[] complete = message;
          dropPartialMessage();
          if (compressed) {
            complete = inflated(complete);
            if (complete == null) {
              return;
            }
          }
          onMessage(PayloadMarshaller.parse(complete));
        }
      }
    }

    /** A gzip message inflated, or null once the call has failed because it could not be. */
    private byte[] inflated(byte[] compressedMessage) {
      try {
        return GzipMessageDecoder.inflate(compressedMessage, maxMessageBytes);
      } catch (GzipMessageDecoder.InflatedTooLargeException tooLarge) {
        calls.faults().note("gRPC message refused", remoteIp() + ": " + tooLarge.getMessage());
        fail(Status.Code.RESOURCE_EXHAUSTED, tooLarge.getMessage());
      } catch (IOException corrupt) {
        fail(Status.Code.INTERNAL, "cannot decompress the gzip message: " + corrupt.getMessage());
      }
      return null;
    }

    final void halfClosed() {
      if (done) {
        return;
      }
      if (message != null || prefixRead > 0) {
        fail(Status.Code.INTERNAL, "Encountered end-of-stream mid-frame");
        return;
      }
      onHalfClose();
    }

    private void dropPartialMessage() {
      if (message != null) {
        bufferedBytes -= message.length;
        message = null;
      }
      prefixRead = 0;
    }

    /** Ends the call with a failure status; the client's further frames are dropped. */
    void fail(Status.Code code, String description) {
      writeEnd(code, description);
    }

    /** Writes the call's trailers (with headers first if none were sent): loop only, once. */
    final void writeEnd(Status.Code code, String description) {
      if (done) {
        return;
      }
      done = true;
      dropPartialMessage();
      Http2Stream stream = connection().stream(streamId);
      if (stream == null) {
        return;
      }
      Http2Headers trailers = new DefaultHttp2Headers();
      if (!headersSent) {
        trailers.status(HttpResponseStatus.OK.codeAsText()).set(CONTENT_TYPE, GRPC_CONTENT_TYPE);
      }
      trailers.set(GRPC_STATUS, Integer.toString(code.value()));
      if (description != null && !description.isEmpty()) {
        trailers.set(GRPC_MESSAGE, GrpcStatusMessages.percentEncode(description));
      }
      // RST_STREAM(NO_ERROR) tells a client still sending to stop (RFC 9113 8.1), but would also
      // drop frames still waiting for flow-control window: then the client just closes its side.
      boolean stopClient =
          stream.state().remoteSideOpen() && !encoder().flowController().hasFlowControlled(stream);
      encoder().writeHeaders(context, streamId, trailers, 0, true, context.newPromise());
      if (stopClient) {
        resetStream(context, streamId, Http2Error.NO_ERROR.code(), context.newPromise());
      }
      flushUnlessBusy();
    }
  }

  /** {@code /Request/request}: one message in, one answer out. */
  private final class UnaryCall extends H2Call implements NacosCalls.UnaryReply, Runnable {
    private static final VarHandle ANSWER;

    static {
      try {
        ANSWER = MethodHandles.lookup().findVarHandle(UnaryCall.class, "answer", ByteBuf.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private Payload request;

    /**
     * The answer's gRPC message, encoded by the answering thread and taken once (by the loop's
     * write, or back by a refused hand-over), so the buffer is released exactly once.
     */
    @SuppressWarnings("unused") // through ANSWER
    private volatile ByteBuf answer;

    UnaryCall(int streamId, boolean gzip) {
      super(streamId, gzip);
    }

    @Override
    void onMessage(Payload message) {
      if (request != null) {
        fail(Status.Code.INTERNAL, "more than one request on a unary call");
        return;
      }
      request = message;
    }

    @Override
    void onHalfClose() {
      if (request == null) {
        fail(Status.Code.INTERNAL, "no request");
        return;
      }
      Payload call = request;
      request = null;
      calls.unary(connectionId, call, this);
    }

    /**
     * Any thread: the answer is encoded here, straight into a pooled buffer, and written on the
     * loop (the call is its own task).
     */
    @Override
    public void answer(NacosResponse response) {
      ByteBuf encoded;
      try {
        encoded = calls.codec().encodeGrpcMessage(response, context.alloc());
      } catch (RuntimeException e) {
        // A bug of ours, not the client's: the call fails at once instead of never being answered
        // (the router now answers on the reading thread, where a throw would end the connection).
        calls.faults().note("gRPC answer not encodable", e);
        fail(Status.Code.INTERNAL, "cannot encode the answer");
        return;
      }
      ANSWER.setRelease(this, encoded);
      if (!onLoop(this)) {
        ByteBuf unsent = take(); // the loop is shutting down: nobody will write it
        if (unsent != null) {
          unsent.release();
        }
      }
    }

    private ByteBuf take() {
      return (ByteBuf) ANSWER.getAndSet(this, (ByteBuf) null);
    }

    /** On the loop: writes the answer. */
    @Override
    public void run() {
      ByteBuf message = take();
      if (message != null) {
        writeAnswer(message);
      }
    }

    /** Any thread. */
    @Override
    public void fail(Status.Code code, String description) {
      onLoop(() -> writeEnd(code, description));
    }

    private void writeAnswer(ByteBuf message) {
      if (done || connection().stream(streamId) == null) {
        done = true;
        message.release();
        return;
      }
      done = true;
      resetPingStrikes();
      Http2ConnectionEncoder out = encoder();
      out.writeHeaders(context, streamId, RESPONSE_HEADERS, 0, false, context.newPromise());
      out.writeData(context, streamId, message, 0, false, context.newPromise());
      out.writeHeaders(context, streamId, OK_TRAILERS, 0, true, context.newPromise());
      flushUnlessBusy();
    }
  }

  /**
   * {@code /BiRequestStream/requestBiStream}: the first message registers the connection, later
   * ones answer pushes; {@link #send} and {@link #close} come from the connection's pushers on any
   * thread, serialised by the {@link Connection}'s send lock, and keep their order on the loop.
   */
  private final class StreamCall extends H2Call implements PushStream {
    private Connection registered;
    private boolean refused;

    /** Written by any thread on close; read by senders. */
    private volatile boolean closing;

    StreamCall(int streamId, boolean gzip) {
      super(streamId, gzip);
    }

    @Override
    void opened() {
      headersSent = true;
      encoder().writeHeaders(context, streamId, RESPONSE_HEADERS, 0, false, context.newPromise());
    }

    @Override
    void onMessage(Payload message) {
      if (refused) {
        return;
      }
      if (registered == null) {
        registered =
            calls.openStream(connectionId, context.channel().remoteAddress(), message, this);
        refused = registered == null;
      } else {
        calls.streamMessage(registered, message);
      }
    }

    @Override
    void onHalfClose() {
      if (registered != null) {
        calls.streamEnded(registered, "client closed the stream");
      } else {
        writeEnd(Status.Code.UNAVAILABLE, "client closed the stream");
      }
    }

    @Override
    void fail(Status.Code code, String description) {
      writeEnd(code, description);
      calls.streamEnded(registered, description);
    }

    @Override
    void streamClosed() {
      super.streamClosed();
      closing = true;
      calls.streamEnded(registered, "stream cancelled");
    }

    @Override
    public void send(Payload message) {
      if (closing) {
        throw new IllegalStateException("stream closed");
      }
      ByteBuf frame = PayloadCodec.grpcMessage(message, context.alloc());
      if (!onLoop(() -> writePush(frame))) {
        frame.release();
        throw new IllegalStateException("connection shutting down");
      }
    }

    private void writePush(ByteBuf frame) {
      if (done || connection().stream(streamId) == null) {
        frame.release();
        return;
      }
      resetPingStrikes();
      encoder().writeData(context, streamId, frame, 0, false, context.newPromise());
      flushUnlessBusy();
    }

    @Override
    public void close(Status.Code code, String description) {
      closing = true;
      onLoop(() -> writeEnd(code, description));
    }
  }

  /** Netty's idiom for a handler that is its own frame listener. */
  private static final class Builder
      extends AbstractHttp2ConnectionHandlerBuilder<NacosH2Handler, Builder> {
    /** SETTINGS_MAX_FRAME_SIZE's default: a larger chunk is cut into frames of this size anyway. */
    private static final int MIN_CHUNK_BYTES = 16 * 1024;

    private final NacosCalls calls;
    private final HandshakeGate gate;
    private final ServerClock clock;
    private final int maxMessageBytes;

    Builder(NacosCalls calls, HandshakeGate gate, ServerClock clock, int maxMessageBytes) {
      this.calls = calls;
      this.gate = gate;
      this.clock = clock;
      this.maxMessageBytes = maxMessageBytes;
      connection(serverConnection());
      initialSettings(
          new Http2Settings()
              .maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
              .maxHeaderListSize(MAX_HEADER_LIST_BYTES)
              .initialWindowSize(FLOW_CONTROL_WINDOW));
      gracefulShutdownTimeoutMillis(GRACEFUL_SHUTDOWN_MILLIS);
      decoderEnforceMaxRstFramesPerWindow(MAX_RESETS_PER_WINDOW, RESET_WINDOW_SECONDS);
    }

    /**
     * A server connection whose remote flow controller hands the window out round-robin in chunks
     * of at least {@value #MIN_CHUNK_BYTES} bytes: each queued answer goes out as one DATA frame.
     * Netty's default distributor (weighted fair queueing, a 1 KiB quantum) cut every answer queued
     * beside others into 1 KiB DATA frames, interleaved across streams, each with its own frame
     * header, buffer slice, promise and priority-queue turn; HTTP/2 priorities, the only reason for
     * it, are deprecated (RFC 9113) and Nacos clients send none.
     */
    private static Http2Connection serverConnection() {
      DefaultHttp2Connection connection = new DefaultHttp2Connection(true);
      UniformStreamByteDistributor distributor = new UniformStreamByteDistributor(connection);
      distributor.minAllocationChunk(MIN_CHUNK_BYTES);
      connection
          .remote()
          .flowController(new DefaultHttp2RemoteFlowController(connection, distributor));
      return connection;
    }

    @Override
    protected NacosH2Handler build() {
      return super.build();
    }

    @Override
    protected NacosH2Handler build(
        Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
      NacosH2Handler handler =
          new NacosH2Handler(decoder, encoder, settings, calls, gate, clock, maxMessageBytes);
      frameListener(handler);
      return handler;
    }
  }
}
