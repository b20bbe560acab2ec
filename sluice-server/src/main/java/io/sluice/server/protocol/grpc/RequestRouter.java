package io.sluice.server.protocol.grpc;

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
 */
public final class RequestRouter {
  private static final Logger log = LoggerFactory.getLogger(RequestRouter.class);

  private final MessageCodec codec;
  private volatile GrpcAccess access = GrpcAccess.OPEN;
  private final Map<String, RequestHandler<NacosRequest>> handlers = new ConcurrentHashMap<>();

  public RequestRouter(MessageCodec codec) {
    this.codec = codec;
  }

  /** Checks every decoded request before its handler; {@link GrpcAccess#OPEN} until set. */
  public void guard(GrpcAccess access) {
    this.access = access;
  }

  @SuppressWarnings("unchecked")
  public <R extends NacosRequest> void register(Class<R> type, RequestHandler<R> handler) {
    codec.register(type);
    handlers.put(type.getSimpleName(), (RequestHandler<NacosRequest>) handler);
  }

  CompletionStage<? extends NacosResponse> route(Payload payload, RequestContext context) {
    RequestHandler<NacosRequest> handler = handlers.get(payload.type());
    if (handler == null) {
      return CompletableFuture.completedFuture(
          ErrorResponse.of(ErrorCodes.NO_HANDLER, "no handler for " + payload.type()));
    }
    NacosRequest request;
    try {
      request = (NacosRequest) codec.decode(payload);
    } catch (IOException | RuntimeException e) {
      return CompletableFuture.completedFuture(
          ErrorResponse.of(
              ErrorCodes.BAD_GATEWAY,
              "cannot read " + payload.type() + ": " + firstLine(e.getMessage())));
    }
    try {
      access.check(request);
    } catch (RuntimeException refused) {
      NacosResponse reply = GrpcFailures.fail(new ErrorResponse(), refused);
      reply.requestId = request.requestId;
      return CompletableFuture.completedFuture(reply);
    }
    CompletionStage<? extends NacosResponse> response;
    try {
      response = handler.handle(request, context);
    } catch (RuntimeException e) {
      log.error("handler for {} failed", payload.type(), e);
      return CompletableFuture.completedFuture(
          ErrorResponse.of(ErrorCodes.SERVER_ERROR, "internal error: " + e.getMessage()));
    }
    String requestId = request.requestId;
    return response.handle(
        (ok, failure) -> {
          NacosResponse reply = ok;
          if (failure != null || ok == null) {
            log.error("handler for {} failed", payload.type(), failure);
            reply =
                ErrorResponse.of(
                    ErrorCodes.SERVER_ERROR,
                    "internal error: " + (failure == null ? "no response" : failure.getMessage()));
          }
          reply.requestId = requestId;
          return reply;
        });
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "malformed body";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
