package io.sluice.server.protocol.http;

import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Open HTTP connections against one bound. A connection beyond it is kept just long enough to
 * answer its first request 503, naming the limit, and is then closed; connections within it are
 * untouched. Counting happens on the event loops, once per connection.
 */
final class ConnectionLimit {
  private final int max;
  private final AtomicInteger open = new AtomicInteger();
  private final Set<HttpConnection> refused = ConcurrentHashMap.newKeySet();
  private final RequestTiming timing;

  ConnectionLimit(int max, RequestTiming timing) {
    this.max = max;
    this.timing = timing;
  }

  int open() {
    return open.get();
  }

  void opened(HttpConnection connection) {
    timing.opened(connection);
    int now = open.incrementAndGet();
    if (now > max) {
      refused.add(connection);
    }
    connection.closeHandler(
        closed -> {
          timing.closed(connection);
          open.decrementAndGet();
          refused.remove(connection);
        });
  }

  /** True when the request arrived on a refused connection, which it then answered and closed. */
  boolean refuses(HttpServerRequest request) {
    if (refused.isEmpty() || !refused.contains(request.connection())) {
      return false;
    }
    request
        .response()
        .setStatusCode(503)
        .putHeader("Content-Type", HttpResponses.TEXT_PLAIN)
        .putHeader("Connection", "close")
        .end("the server has " + max + " HTTP connections open, its limit (max-http-connections)");
    request.connection().close();
    return true;
  }
}
