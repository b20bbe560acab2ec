package io.sluice.server.protocol.http;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * Answers a request when a stage completes. Writes complete on replication threads; the answer is
 * written back on the request's event loop, and a failure becomes an error reply through {@link
 * HttpFailures}, the one translation of failures.
 */
public final class AsyncReply {
  private AsyncReply() {}

  /**
   * When {@code stage} completes, runs {@code onSuccess} with its value on the event loop that
   * called this; a failure (or an exception from {@code onSuccess}) is answered in {@code style}.
   */
  public static <T> void when(
      CompletionStage<T> stage, HttpServerRequest request, ApiStyle style, Consumer<T> onSuccess) {
    when(stage, request, style, NacosErrorCode.PARAMETER_VALIDATE_ERROR, onSuccess);
  }

  /** As {@link #when}, for an API whose v2 code for invalid input is {@code invalidCode}. */
  public static <T> void when(
      CompletionStage<T> stage,
      HttpServerRequest request,
      ApiStyle style,
      NacosErrorCode invalidCode,
      Consumer<T> onSuccess) {
    Context context = Vertx.currentContext();
    stage.whenComplete(
        (value, failure) -> {
          if (context == null) {
            answer(request, style, invalidCode, onSuccess, value, failure);
          } else {
            context.runOnContext(
                ignored -> answer(request, style, invalidCode, onSuccess, value, failure));
          }
        });
  }

  /**
   * Runs {@code work} on a Vert.x worker, for work too long for the event loop (a scan over every
   * config, a read from disk), then answers as {@link #when} does. Call it on the event loop.
   */
  public static <T> void offEventLoop(
      HttpServerRequest request, ApiStyle style, Callable<T> work, Consumer<T> onSuccess) {
    when(
        Vertx.currentContext().executeBlocking(work, false).toCompletionStage(),
        request,
        style,
        onSuccess);
  }

  private static <T> void answer(
      HttpServerRequest request,
      ApiStyle style,
      NacosErrorCode invalidCode,
      Consumer<T> onSuccess,
      T value,
      Throwable failure) {
    try {
      if (failure != null) {
        style.fail(request.response(), HttpFailures.of(failure, invalidCode));
        return;
      }
      onSuccess.accept(value);
    } catch (RuntimeException e) {
      style.fail(request.response(), HttpFailures.of(e, invalidCode));
    }
  }
}
