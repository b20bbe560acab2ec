package io.sluice.server.protocol.http;

import io.sluice.server.ServerOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The HTTP port: Nacos's Open API under {@code /nacos} and, later, the console. Handlers run on the
 * event loop and only do CPU work there.
 */
public final class HttpApiServer implements AutoCloseable {
  private static final long START_TIMEOUT_SECONDS = 30;

  private final HttpServer server;

  private HttpApiServer(HttpServer server) {
    this.server = server;
  }

  /**
   * Starts the HTTP port.
   *
   * @param features mounts the routes of the server's features (naming, ...)
   */
  public static HttpApiServer start(
      Vertx vertx, ServerOptions options, BooleanSupplier ready, Consumer<Router> features) {
    Router router = Router.router(vertx);
    HealthRoutes.mount(router, ready);
    features.accept(router);
    HttpServer server =
        vertx
            .createHttpServer(
                new HttpServerOptions()
                    .setHost(options.bindAddress())
                    .setPort(options.httpPort())
                    .setTcpNoDelay(true))
            .requestHandler(router);
    await(server.listen());
    return new HttpApiServer(server);
  }

  public int port() {
    return server.actualPort();
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
