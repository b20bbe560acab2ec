package io.sluice.server.naming.health;

import io.sluice.server.naming.Instance;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import java.util.concurrent.CompletionStage;

/**
 * Probes instances with Vert.x's non-blocking clients, on its event loops: a TCP connect (closed at
 * once) or an HTTP GET without keep-alive. Every probe ends within {@code timeoutMillis}: connect
 * and idle timeouts bound it.
 */
public final class VertxHealthProbe implements HealthProbe, AutoCloseable {
  private final NetClient tcp;
  private final HttpClient http;
  private final long timeoutMillis;

  public VertxHealthProbe(Vertx vertx, long timeoutMillis, int maxConnections) {
    this.timeoutMillis = timeoutMillis;
    int timeout = (int) Math.min(Integer.MAX_VALUE, timeoutMillis);
    this.tcp = vertx.createNetClient(new NetClientOptions().setConnectTimeout(timeout));
    this.http =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setConnectTimeout(timeout)
                .setKeepAlive(false)
                .setMaxRedirects(0),
            new PoolOptions().setHttp1MaxSize(maxConnections).setMaxWaitQueueSize(maxConnections));
  }

  @Override
  public CompletionStage<Boolean> probe(Instance instance, HealthCheck check) {
    Future<Boolean> result =
        switch (check.type()) {
          case NONE -> Future.succeededFuture(true);
          case TCP ->
              tcp.connect(instance.port(), host(instance))
                  .compose(
                      socket -> socket.close().map(true), failure -> Future.succeededFuture(false));
          case HTTP ->
              http.request(
                      new RequestOptions()
                          .setMethod(HttpMethod.GET)
                          .setHost(host(instance))
                          .setPort(instance.port())
                          .setURI(check.path())
                          .setIdleTimeout(timeoutMillis))
                  .compose(request -> request.send())
                  .compose(
                      response ->
                          response
                              .end()
                              .map(v -> response.statusCode() == check.expectedResponseCode()))
                  .recover(failure -> Future.succeededFuture(false));
        };
    return result.toCompletionStage();
  }

  /** IPv6 addresses may be registered with brackets; the clients want them bare. */
  private static String host(Instance instance) {
    String ip = instance.ip();
    return ip.startsWith("[") && ip.endsWith("]") ? ip.substring(1, ip.length() - 1) : ip;
  }

  @Override
  public void close() {
    tcp.close();
    http.close();
  }
}
