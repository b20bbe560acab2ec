package io.sluice.server.replication;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Shares read barriers between concurrent readers without weakening them. A barrier started before
 * a reader arrived may have taken its read index before a write the reader already saw
 * acknowledged, so a reader never joins a barrier in flight: it joins the next one, which starts
 * when the one in flight ends. At most one barrier is in flight and one is waiting, however many
 * readers there are.
 *
 * <p>Concurrency: {@link #running} and {@link #waiting} are guarded by {@code this}; barriers are
 * started and completed outside the lock.
 */
final class ReadBarriers {
  private final Supplier<CompletableFuture<Void>> barrier;

  private CompletableFuture<Void> running;
  private CompletableFuture<Void> waiting;

  ReadBarriers(Supplier<CompletableFuture<Void>> barrier) {
    this.barrier = barrier;
  }

  /** A barrier that starts now, or the next one when one is in flight. */
  CompletableFuture<Void> join() {
    CompletableFuture<Void> started;
    synchronized (this) {
      if (running != null) {
        if (waiting == null) {
          waiting = new CompletableFuture<>();
        }
        return waiting;
      }
      started = new CompletableFuture<>();
      running = started;
    }
    launch(started);
    return started;
  }

  private void launch(CompletableFuture<Void> result) {
    CompletableFuture<Void> attempt;
    try {
      attempt = barrier.get();
    } catch (RuntimeException e) {
      attempt = CompletableFuture.failedFuture(e);
    }
    attempt.whenComplete(
        (ignored, failure) -> {
          CompletableFuture<Void> next;
          synchronized (this) {
            next = waiting;
            waiting = null;
            running = next;
          }
          if (failure != null) {
            result.completeExceptionally(failure);
          } else {
            result.complete(null);
          }
          if (next != null) {
            launch(next);
          }
        });
  }
}
