package io.sluice.server.replication;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * Shares read barriers between concurrent readers without weakening them. A barrier started before
 * a reader arrived may have taken its read index before a write the reader already saw
 * acknowledged, so a reader never joins a barrier in flight: it joins the next one, which starts
 * when the one in flight ends. At most one barrier is in flight and one is waiting, however many
 * readers there are.
 *
 * <p>Threads: barriers are started, and readers completed, on {@code executor}, never on the
 * caller's thread (an event loop must not wait for Ratis to take the request) nor on the thread
 * that completes a barrier (a Ratis thread, which may hold Ratis's locks while it does).
 *
 * <p>Concurrency: {@link #running} and {@link #waiting} are guarded by {@code this}.
 */
final class ReadBarriers {
  private final Supplier<CompletableFuture<Void>> barrier;
  private final Executor executor;

  private CompletableFuture<Void> running;
  private CompletableFuture<Void> waiting;

  ReadBarriers(Supplier<CompletableFuture<Void>> barrier, Executor executor) {
    this.barrier = barrier;
    this.executor = executor;
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
    run(
        () -> {
          CompletableFuture<Void> attempt;
          try {
            attempt = barrier.get();
          } catch (RuntimeException e) {
            attempt = CompletableFuture.failedFuture(e);
          }
          attempt.whenComplete((ignored, failure) -> run(() -> finish(result, failure), result));
        },
        result);
  }

  private void finish(CompletableFuture<Void> result, Throwable failure) {
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
  }

  /** Runs on the executor; if it refuses (closing), fails this barrier and whoever waits. */
  private void run(Runnable task, CompletableFuture<Void> result) {
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      CompletableFuture<Void> next;
      synchronized (this) {
        next = waiting;
        waiting = null;
        running = null;
      }
      ReplicatorClosedException closed = new ReplicatorClosedException("replicator is closed");
      result.completeExceptionally(closed);
      if (next != null) {
        next.completeExceptionally(closed);
      }
    }
  }
}
