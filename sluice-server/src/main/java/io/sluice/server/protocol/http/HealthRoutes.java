package io.sluice.server.protocol.http;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;

/**
 * Nacos's probe endpoints, which Kubernetes manifests written for Nacos already point at: liveness
 * says the process serves HTTP, readiness says it can serve clients and, when not, why (starting, a
 * disk nearly full, a store that failed to write).
 */
final class HealthRoutes {
  private HealthRoutes() {}

  static void mount(Router router, Readiness readiness) {
    router
        .route(HttpMethod.GET, "/nacos/v1/console/health/liveness")
        .handler(ctx -> HttpResponses.text(ctx.response(), 200, "OK"));
    router
        .route(HttpMethod.GET, "/nacos/v1/console/health/readiness")
        .handler(
            ctx -> {
              String why = readiness.whyNotReady();
              if (why == null) {
                HttpResponses.text(ctx.response(), 200, "OK");
              } else {
                // As Nacos: 500 while the server cannot serve its clients.
                HttpResponses.text(ctx.response(), 500, why);
              }
            });
  }
}
