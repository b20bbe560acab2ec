package io.sluice.server.protocol.http;

import io.vertx.core.http.HttpServerRequest;

/**
 * Answers one request whose parameters have been read. Runs on the request's event loop; throws
 * {@link HttpApiException} to refuse the request.
 */
@FunctionalInterface
public interface ParamsHandler {
  void handle(HttpServerRequest request, HttpParams params);
}
