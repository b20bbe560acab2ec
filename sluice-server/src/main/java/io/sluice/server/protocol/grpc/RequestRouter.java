package io.sluice.server.protocol.grpc;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.metrics.OperationMeter;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.protocol.grpc.ConnectionMessages.ErrorResponse;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes a decoded unary request to the handler registered for its type, and turns every failure
 * into a response the client understands: a bad body or an unknown type never reaches a handler,
 * and a handler's exception becomes an {@code ErrorResponse}, never a dropped call.
 *
 * <p>Each request is timed into its type's {@link OperationMeter}, made when the handler is
 * registered (an unknown type shares {@code other}): two clock reads and a few {@code LongAdder}
 * increments, so timing allocates nothing of its own.
 */
public final class RequestRouter {
  private static final Logger log = LoggerFactory.getLogger(RequestRouter.class);

  private final MessageCodec codec;
  private final ServerClock clock;
  private final ServerMetrics metrics;
  private final OperationMeter other;
  private volatile GrpcAccess access = GrpcAccess.OPEN;
  private final Map<String, Registered> handlers = new ConcurrentHashMap<>();

  private record Registered(RequestHandler<NacosRequest> handler, OperationMeter meter) {}

  public RequestRouter(MessageCodec codec, ServerClock clock, ServerMetrics metrics) {
    this.codec = codec;
    this.clock = clock;
    this.metrics = metrics;
    this.other = metrics.operation("grpc", ServerMetrics.OTHER);
  }

  /** Checks every decoded request before its handler; {@link GrpcAccess#OPEN} until set. */
  public void guard(GrpcAccess access) {
    this.access = access;
  }

  public <R extends NacosRequest> void register(Class<R> type, RequestHandler<R> handler) {
    codec.register(type);
    handle(type, handler);
  }

  /**
   * As {@link #register(Class, RequestHandler)}, with the body read by {@code decoder} first (a hot
   * request type; see {@link BodyDecoder}).
   */
  public <R extends NacosRequest> void register(
      Class<R> type, BodyDecoder<R> decoder, RequestHandler<R> handler) {
    codec.register(type, decoder);
    handle(type, handler);
  }

  @SuppressWarnings("unchecked")
  private <R extends NacosRequest> void handle(Class<R> type, RequestHandler<R> handler) {
    String name = type.getSimpleName();
    handlers.put(
        name,
        new Registered((RequestHandler<NacosRequest>) handler, metrics.operation("grpc", name)));
  }

  /**
   * Decodes {@code payload}, checks it, runs its handler and gives the outcome to {@code reply} (on
   * this thread when the handler's stage is already complete, as a query's is; else on the thread
   * completing it). Every outcome is an answer, never a failed call.
   */
  void route(Payload payload, RequestContext context, NacosCalls.UnaryReply reply) {
    long start = clock.nanoTime();
    Registered registered = handlers.get(payload.type());
    if (registered == null) {
      other.record(clock.nanoTime() - start, false);
      reply.answer(ErrorResponse.of(ErrorCodes.NO_HANDLER, "no handler for " + payload.type()));
      return;
    }
    RequestHandler<NacosRequest> handler = registered.handler();
    OperationMeter meter = registered.meter();
    NacosRequest request;
    try {
      request = (NacosRequest) codec.decode(payload);
    } catch (IOException | RuntimeException e) {
      meter.record(clock.nanoTime() - start, false);
      reply.answer(
          ErrorResponse.of(
              ErrorCodes.BAD_GATEWAY,
              "cannot read " + payload.type() + ": " + firstLine(e.getMessage())));
      return;
    }
    try {
      access.check(request);
    } catch (RuntimeException refused) {
      NacosResponse refusal = GrpcFailures.fail(new ErrorResponse(), refused);
      refusal.requestId = request.requestId;
      meter.record(clock.nanoTime() - start, false);
      reply.answer(refusal);
      return;
    }
    CompletionStage<? extends NacosResponse> response;
    try {
      response = handler.handle(request, context);
    } catch (RuntimeException e) {
      log.error("handler for {} failed", payload.type(), e);
      meter.record(clock.nanoTime() - start, true);
      reply.answer(ErrorResponse.of(ErrorCodes.SERVER_ERROR, "internal error: " + e.getMessage()));
      return;
    }
    String requestId = request.requestId;
    // A handler that answered at once (queries, cached reads) returns a completed future: its
    // answer goes out here, without the two completion stages a chained callback would allocate.
    if (response instanceof CompletableFuture<? extends NacosResponse> future
        && future.isDone()
        && !future.isCompletedExceptionally()) {
      finish(payload.type(), future.getNow(null), null, requestId, meter, start, reply);
      return;
    }
    response.whenComplete(
        (ok, failure) -> finish(payload.type(), ok, failure, requestId, meter, start, reply));
  }

  private void finish(
      String type,
      NacosResponse ok,
      Throwable failure,
      String requestId,
      OperationMeter meter,
      long start,
      NacosCalls.UnaryReply reply) {
    NacosResponse answer = ok;
    if (failure != null || ok == null) {
      log.error("handler for {} failed", type, failure);
      answer =
          ErrorResponse.of(
              ErrorCodes.SERVER_ERROR,
              "internal error: " + (failure == null ? "no response" : failure.getMessage()));
    }
    answer.requestId = requestId;
    meter.record(clock.nanoTime() - start, serverFailed(answer));
    reply.answer(answer);
  }

  /** A failure of the server's own (5xx error codes), not an answer about the client's request. */
  private static boolean serverFailed(NacosResponse reply) {
    return reply.resultCode != NacosResponse.SUCCESS && reply.errorCode >= 500;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "malformed body";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
