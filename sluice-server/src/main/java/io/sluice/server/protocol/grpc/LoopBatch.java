package io.sluice.server.protocol.grpc;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Work other threads hand to one connection's event loop, run in batches: a drain runs everything
 * queued so far, then flushes once. A drain is scheduled only when none is scheduled and not yet
 * started, so a burst of answers completed off the loop (Raft applies, pushes) costs one loop task
 * and one flush instead of one of each per answer.
 *
 * <p>Invariants: tasks run on the loop, in the order they were handed over; a task queued while the
 * loop accepts work runs in a drain that starts after it was queued (the scheduled flag is cleared
 * before the drain polls, so a task queued after the last poll schedules a drain of its own). The
 * queue is not bounded here: callers bound what can be outstanding.
 */
final class LoopBatch {
  private static final Logger log = LoggerFactory.getLogger(LoopBatch.class);

  private final EventExecutor loop;
  private final Runnable flush;
  private final Queue<Runnable> queued = PlatformDependent.newMpscQueue();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private final Runnable drain = this::drain;

  /** Loop only: true while a drain runs its tasks (they leave the flush to it). */
  private boolean draining;

  LoopBatch(EventExecutor loop, Runnable flush) {
    this.loop = loop;
    this.flush = flush;
  }

  /**
   * Queues {@code task} for the loop's next drain (any thread). Returns false when the loop refuses
   * work because it is shutting down: queued tasks may then never run.
   */
  boolean execute(Runnable task) {
    queued.offer(task);
    return schedule();
  }

  /** Loop only: whether a drain is running its tasks, which then must not flush. */
  boolean draining() {
    return draining;
  }

  private boolean schedule() {
    if (!scheduled.compareAndSet(false, true)) {
      return true;
    }
    try {
      loop.execute(drain);
      return true;
    } catch (RejectedExecutionException shuttingDown) {
      scheduled.set(false);
      return false;
    }
  }

  private void drain() {
    scheduled.set(false);
    draining = true;
    try {
      Runnable task;
      while ((task = queued.poll()) != null) {
        try {
          task.run();
        } catch (RuntimeException bug) {
          // A write never throws by design; one that does must not cost the others their turn.
          log.error("a write handed to the event loop failed", bug);
        }
      }
    } finally {
      draining = false;
    }
    flush.run();
  }
}
