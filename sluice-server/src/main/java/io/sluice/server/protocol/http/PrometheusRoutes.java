package io.sluice.server.protocol.http;

import io.sluice.server.metrics.PrometheusText;
import io.sluice.server.metrics.ServerMetrics;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;

/**
 * {@code GET /nacos/actuator/prometheus}: the server's metrics in Prometheus's text format, at the
 * path Nacos serves them, so scrape configurations written for Nacos work unchanged. Like the
 * health probes (and Nacos's actuator) it needs no token: it shows counts and durations per
 * operation, never a config, a service or a client by name. A scrape reads gauges that walk the
 * registry, so it runs on a worker, never on the event loop.
 */
final class PrometheusRoutes {
  static final String PATH = "/nacos/actuator/prometheus";

  private PrometheusRoutes() {}

  static void mount(Router router, ServerMetrics metrics) {
    router
        .route(HttpMethod.GET, PATH)
        .handler(
            ctx ->
                AsyncReply.offEventLoop(
                    ctx.request(),
                    ApiStyle.V1,
                    metrics::scrape,
                    text ->
                        HttpResponses.body(
                            ctx.response(), 200, PrometheusText.CONTENT_TYPE, text)));
  }
}
