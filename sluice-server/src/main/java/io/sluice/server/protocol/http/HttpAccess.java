package io.sluice.server.protocol.http;

import io.vertx.core.http.HttpServerRequest;

/**
 * Whether a request may proceed, decided once its parameters are read and before its handler runs
 * (auth's check, installed by the server; {@link #OPEN} lets everything through). Runs on the event
 * loop for every request: CPU only, no blocking.
 */
@FunctionalInterface
public interface HttpAccess {
  HttpAccess OPEN = (request, params) -> {};

  /** Returns when the request may proceed; otherwise throws (a 401 or 403 failure). */
  void check(HttpServerRequest request, HttpParams params);
}
