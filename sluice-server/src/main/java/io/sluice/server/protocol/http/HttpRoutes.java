package io.sluice.server.protocol.http;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import java.util.List;

/**
 * One feature's part of the HTTP API, mounted by {@link HttpApiServer}. Its one abstract method
 * makes a lambda {@code router -> ...} a feature too.
 */
@FunctionalInterface
public interface HttpRoutes {
  void mount(Router router);

  /**
   * Takes a request before the router sees it, for requests held long enough that the router's
   * per-request state would be the larger part of their cost (held long-polls). Returns true when
   * it took the request. A request taken must be read with {@link RequestParams#read} and {@code
   * access}, so it is checked as routed ones are. Runs on the event loop for every request, so it
   * must decide cheaply.
   */
  default boolean takeDirectly(HttpServerRequest request, HttpAccess access) {
    return false;
  }

  /**
   * The requests {@link #takeDirectly} takes, as {@code "METHOD /path"}, so the port's metrics time
   * them under their own name rather than as {@code other}.
   */
  default List<String> directOperations() {
    return List.of();
  }
}
