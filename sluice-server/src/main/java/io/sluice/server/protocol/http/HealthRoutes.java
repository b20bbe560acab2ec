package io.sluice.server.protocol.http;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import java.util.function.BooleanSupplier;

/**
 * Nacos's probe endpoints, which Kubernetes manifests written for Nacos already point at: liveness
 * says the process serves HTTP, readiness says it can serve clients.
 */
final class HealthRoutes {
  private HealthRoutes() {}

  static void mount(Router router, BooleanSupplier ready) {
    router
        .route(HttpMethod.GET, "/nacos/v1/console/health/liveness")
        .handler(ctx -> HttpResponses.text(ctx.response(), 200, "OK"));
    router
        .route(HttpMethod.GET, "/nacos/v1/console/health/readiness")
        .handler(
            ctx -> {
              if (ready.getAsBoolean()) {
                HttpResponses.text(ctx.response(), 200, "OK");
              } else {
                // As Nacos: 500 until the server can serve its clients.
                HttpResponses.text(ctx.response(), 500, "server is starting");
              }
            });
  }
}
