package io.sluice.server.protocol.http;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.protocol.ClientFaultLog;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.ext.web.Router;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The HTTP port: Nacos's Open API under {@code /nacos}, the probes, the metrics and the console.
 * Handlers run on the event loop and only do CPU work there.
 */
public final class HttpApiServer implements AutoCloseable {
  private static final long START_TIMEOUT_SECONDS = 30;

  /**
   * Nacos's v1 API takes parameters in the query string, even a config's content on a POST; Tomcat
   * accepts 8 KiB of headers. Room for that, bounded.
   */
  static final int MAX_INITIAL_LINE_BYTES = 32 * 1024;

  static final int MAX_HEADER_BYTES = 16 * 1024;

  private static final long UNKNOWN_PATH_BODY_BYTES = 64 * 1024;

  private final HttpServer server;
  private final ConnectionLimit connections;

  private HttpApiServer(HttpServer server, ConnectionLimit connections) {
    this.server = server;
    this.connections = connections;
  }

  /**
   * Starts the HTTP port with the probes and the given features' routes.
   *
   * @param port 0 for any free port ({@link #port()} tells which)
   * @param tlsCertificate the PEM certificate to serve HTTPS with, or null for plain HTTP
   * @param tlsPrivateKey its PEM private key
   * @param faults where clients' faults the port sees are noted, rate-limited
   * @param limits bounds on connections, their silence and buffered request bodies
   * @param access checks every request of the features' routes once its parameters are read (the
   *     probes are not checked)
   * @param features the routes of the server's features (config, namespaces, naming, ...); a lambda
   *     {@code router -> ...} is one
   * @param metrics where each request's duration is recorded, per route ({@link RequestTiming})
   */
  public static HttpApiServer start(
      Vertx vertx,
      String bindAddress,
      int port,
      Readiness readiness,
      HttpAccess access,
      HttpLimits limits,
      ClientFaultLog faults,
      Path tlsCertificate,
      Path tlsPrivateKey,
      List<HttpRoutes> features,
      ServerClock clock,
      ServerMetrics metrics) {
    Router router = Router.router(vertx);
    RequestTiming timing = new RequestTiming(clock, metrics);
    BodyBudget budget = new BodyBudget(limits.maxBufferedBodyBytes());
    // Every route reads its parameters with RequestParams, which checks them with this.
    router
        .route()
        .order(Integer.MIN_VALUE)
        .handler(
            ctx -> {
              ctx.put(RequestParams.ACCESS, access);
              ctx.put(RequestParams.BUDGET, budget);
              ctx.next();
            });
    HealthRoutes.mount(router, readiness);
    PrometheusRoutes.mount(router, metrics);
    for (HttpRoutes feature : features) {
      feature.mount(router);
    }
    timing.index(router.getRoutes());
    for (HttpRoutes feature : features) {
      feature.directOperations().forEach(timing::indexDirect);
    }
    // A path no feature serves is checked like the others before it is answered 404: with auth on,
    // a caller without the admin's token learns nothing about which endpoints exist.
    router
        .route("/nacos/*")
        .last()
        .handler(
            RequestParams.handler(
                UNKNOWN_PATH_BODY_BYTES,
                ApiStyle.V1,
                (request, params) ->
                    HttpResponses.text(
                        request.response(),
                        404,
                        "no such endpoint: " + request.method() + " " + request.path())));
    List<HttpRoutes> direct = List.copyOf(features);
    ConnectionLimit connections = new ConnectionLimit(limits.maxConnections(), timing);
    HeaderTimeout headerTimeout = new HeaderTimeout(limits.headerTimeout(), faults);
    HttpServer server =
        vertx
            .createHttpServer(
                withTls(
                    new HttpServerOptions()
                        .setHost(bindAddress)
                        .setPort(port)
                        .setTcpNoDelay(true)
                        .setMaxInitialLineLength(MAX_INITIAL_LINE_BYTES)
                        .setMaxHeaderSize(MAX_HEADER_BYTES)
                        .setIdleTimeout((int) limits.idleTimeout().toMillis())
                        .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
                        // Every handler answers on its connection's event loop (replies that
                        // complete
                        // elsewhere hop back first), so connections can skip their thread-safe
                        // write
                        // queue: some 5 KB less heap per connection, which held long-polls
                        // multiply.
                        .setStrictThreadMode(true),
                    tlsCertificate,
                    tlsPrivateKey))
            .connectionHandler(
                connection -> {
                  connections.opened(connection);
                  headerTimeout.watch(connection);
                })
            // Broken connections and malformed requests are the client's fault: one short,
            // rate-limited line each, off the event loop.
            .exceptionHandler(fault -> faults.note("HTTP connection", fault))
            .invalidRequestHandler(
                request -> {
                  faults.note(
                      "malformed HTTP request",
                      request.remoteAddress() + ": " + request.decoderResult().cause());
                  HttpServerRequest.DEFAULT_INVALID_REQUEST_HANDLER.handle(request);
                })
            .requestHandler(
                request -> {
                  timing.start(request);
                  headerTimeout.requestArrived(request);
                  if (connections.refuses(request)) {
                    return;
                  }
                  for (HttpRoutes feature : direct) {
                    if (feature.takeDirectly(request, access)) {
                      return;
                    }
                  }
                  router.handle(request);
                });
    try {
      await(server.listen());
    } catch (RuntimeException e) {
      // Vert.x says "Address already in use" without the address: name the port.
      throw new IllegalStateException(
          "cannot listen on HTTP port " + bindAddress + ":" + port + ": " + e.getMessage(), e);
    }
    return new HttpApiServer(server, connections);
  }

  /** The options, serving TLS with the certificate and key when a certificate is given. */
  private static HttpServerOptions withTls(HttpServerOptions options, Path certificate, Path key) {
    if (certificate == null) {
      return options;
    }
    return options
        .setSsl(true)
        .setKeyCertOptions(
            new PemKeyCertOptions().setCertPath(certificate.toString()).setKeyPath(key.toString()));
  }

  public int port() {
    return server.actualPort();
  }

  /** HTTP connections open now. */
  public int openConnections() {
    return connections.open();
  }

  @Override
  public void close() {
    await(server.close());
  }

  /** Blocks the calling (non event-loop) thread until a Vert.x future completes. */
  public static <T> T await(Future<T> future) {
    try {
      return future
          .toCompletionStage()
          .toCompletableFuture()
          .get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(cause.getMessage(), cause);
    } catch (TimeoutException e) {
      throw new IllegalStateException("timed out after " + START_TIMEOUT_SECONDS + " s", e);
    }
  }
}
