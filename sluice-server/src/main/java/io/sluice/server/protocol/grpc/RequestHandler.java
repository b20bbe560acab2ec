package io.sluice.server.protocol.grpc;

import java.util.concurrent.CompletionStage;

/**
 * Handles one request type. Runs on a gRPC event loop, so it must not block: CPU work only, and
 * anything slow (a replicated write) returns an incomplete stage.
 */
@FunctionalInterface
public interface RequestHandler<R extends NacosRequest> {
  CompletionStage<? extends NacosResponse> handle(R request, RequestContext context);
}
