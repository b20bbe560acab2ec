package io.sluice.server.protocol.http;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a request when a write completes. Writes complete on replication threads; the answer is
 * written back on the request's event loop, and a failure becomes an error reply.
 */
public final class AsyncReply {
  private static final Logger log = LoggerFactory.getLogger(AsyncReply.class);

  private AsyncReply() {}

  /**
   * When {@code stage} completes, runs {@code onSuccess} with its value on the event loop that
   * called this; a failure (or an {@link HttpApiException} from {@code onSuccess}) is answered in
   * {@code style}, mapped by {@code failures}, which may return null for "not mine" (then {@link
   * WriteFailures#of} decides).
   */
  public static <T> void when(
      CompletionStage<T> stage,
      HttpServerRequest request,
      ApiStyle style,
      Function<Throwable, HttpApiException> failures,
      Consumer<T> onSuccess) {
    Context context = Vertx.currentContext();
    stage.whenComplete(
        (value, failure) -> {
          if (context == null) {
            answer(request, style, failures, onSuccess, value, failure);
          } else {
            context.runOnContext(
                ignored -> answer(request, style, failures, onSuccess, value, failure));
          }
        });
  }

  /**
   * Runs {@code work} on a Vert.x worker, for work too long for the event loop (a scan over every
   * config, a read from disk), then answers as {@link #when} does. Call it on the event loop.
   */
  public static <T> void offEventLoop(
      HttpServerRequest request,
      ApiStyle style,
      Function<Throwable, HttpApiException> failures,
      Callable<T> work,
      Consumer<T> onSuccess) {
    when(
        Vertx.currentContext().executeBlocking(work, false).toCompletionStage(),
        request,
        style,
        failures,
        onSuccess);
  }

  private static <T> void answer(
      HttpServerRequest request,
      ApiStyle style,
      Function<Throwable, HttpApiException> failures,
      Consumer<T> onSuccess,
      T value,
      Throwable failure) {
    try {
      if (failure != null) {
        Throwable cause = WriteFailures.cause(failure);
        HttpApiException mapped = failures.apply(cause);
        style.fail(request.response(), mapped != null ? mapped : WriteFailures.of(cause));
        return;
      }
      onSuccess.accept(value);
    } catch (HttpApiException e) {
      style.fail(request.response(), e);
    } catch (RuntimeException e) {
      log.error("{} {} failed", request.method(), request.path(), e);
      style.fail(request.response(), WriteFailures.of(e));
    }
  }
}
