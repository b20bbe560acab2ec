package io.sluice.server;

import io.sluice.server.protocol.http.HttpApiServer;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The root object of a running server: it builds every component from {@link ServerOptions}, starts
 * them in order and closes them in reverse. There is no other global state; tests start as many
 * servers as they like in one JVM.
 */
public final class SluiceServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SluiceServer.class);

  private final ServerOptions options;
  private final Vertx vertx;
  private final HttpApiServer httpApi;
  private final AtomicBoolean closed = new AtomicBoolean();

  private SluiceServer(ServerOptions options, Vertx vertx, HttpApiServer httpApi) {
    this.options = options;
    this.vertx = vertx;
    this.httpApi = httpApi;
  }

  /** Starts a server and returns once it serves requests; throws if any part fails to start. */
  public static SluiceServer start(ServerOptions options) {
    try {
      Files.createDirectories(options.dataDir());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create data directory " + options.dataDir(), e);
    }
    // Two event loops match the machines we target; the HTTP API only does CPU work on them.
    Vertx vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(Math.min(2, Runtime.getRuntime().availableProcessors()))
                .setWorkerPoolSize(4)
                .setInternalBlockingPoolSize(2));
    try {
      HttpApiServer httpApi = HttpApiServer.start(vertx, options);
      SluiceServer server = new SluiceServer(options, vertx, httpApi);
      log.debug("started with {}", options);
      return server;
    } catch (RuntimeException e) {
      vertx.close();
      throw e;
    }
  }

  public ServerOptions options() {
    return options;
  }

  /** The HTTP port actually bound (differs from the option when it was 0). */
  public int httpPort() {
    return httpApi.port();
  }

  public String httpAddress() {
    return "http://" + options.bindAddress() + ":" + httpPort();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    httpApi.close();
    HttpApiServer.await(vertx.close());
  }
}
