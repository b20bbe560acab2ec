package io.sluice.agent.governance;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Resolves an inbound request's (method, route pattern) to its resource handle, building the name
 * {@code "GET /orders/{id}"} once per route and method and never per request. Route patterns come
 * from the web framework's own mappings, so their number is bounded by the application's code; the
 * table is capped all the same, past which routes are not governed (and one line is logged).
 *
 * <p>Concurrency: a lock-free map of small arrays; two threads racing on a new entry may both
 * resolve it, which is harmless because the resolver returns the same handle for the same name.
 */
final class RouteResources<R> {
  static final int DEFAULT_MAX_ROUTES = 10_000;

  private static final String[] METHODS = {
    "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE", "OTHER"
  };

  private final ConcurrentHashMap<String, Object[]> byRoute = new ConcurrentHashMap<>();
  private final Function<String, R> resolver;
  private final int maxRoutes;
  private final Runnable onOverflow;

  /**
   * @param resolver the resource handle of a name; called once per route and method
   * @param onOverflow called (at most once per new route) when the table is full
   */
  RouteResources(Function<String, R> resolver, int maxRoutes, Runnable onOverflow) {
    this.resolver = resolver;
    this.maxRoutes = maxRoutes;
    this.onOverflow = onOverflow;
  }

  /** The handle of {@code method route}, or null if the table is full. */
  @SuppressWarnings("unchecked")
  R resolve(String method, String route) {
    Object[] perMethod = byRoute.get(route);
    if (perMethod == null) {
      if (byRoute.size() >= maxRoutes) {
        onOverflow.run();
        return null;
      }
      perMethod = byRoute.computeIfAbsent(route, r -> new Object[METHODS.length]);
    }
    int index = methodIndex(method);
    Object handle = perMethod[index];
    if (handle == null) {
      handle = resolver.apply(resourceName(METHODS[index], route));
      perMethod[index] = handle;
    }
    return (R) handle;
  }

  /** The resource name of an inbound route: {@code "GET /orders/{id}"}. */
  static String resourceName(String method, String route) {
    return method + " " + route;
  }

  int size() {
    return byRoute.size();
  }

  // Any method outside the standard eight shares one name, so odd verbs cannot multiply resources.
  private static int methodIndex(String method) {
    switch (method) {
      case "GET":
        return 0;
      case "POST":
        return 1;
      case "PUT":
        return 2;
      case "DELETE":
        return 3;
      case "PATCH":
        return 4;
      case "HEAD":
        return 5;
      case "OPTIONS":
        return 6;
      case "TRACE":
        return 7;
      default:
        return 8;
    }
  }
}
