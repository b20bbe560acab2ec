package io.sluice.agent.bootstrap;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The contexts of {@code ForkJoinTask}s forked or submitted as tasks, which cannot be wrapped
 * because the pool queues the task object itself: the context is noted against the task (by
 * identity) when it is handed over and taken back by whichever thread runs it. When nothing is
 * pending, running a task costs one counter read.
 *
 * <p>Bounded: at most {@link #MAX_PENDING} tasks wait with a context; past that, further tasks run
 * without one rather than grow the table (a task that is never run, e.g. cancelled before it
 * started, keeps its entry until the table is cleared at the bound).
 */
public final class TaskContexts {
  static final int MAX_PENDING = 100_000;

  private static final ConcurrentHashMap<Key, SluiceContext> PENDING = new ConcurrentHashMap<>();
  private static final AtomicInteger SIZE = new AtomicInteger();
  private static final ThreadLocal<Key> LOOKUP = ThreadLocal.withInitial(Key::new);

  private TaskContexts() {}

  /** Notes the current context against {@code task}, which is about to be queued. */
  public static void handOver(Object task) {
    SluiceContext context = SluiceContext.current();
    if (context == null || task == null) {
      return;
    }
    if (SIZE.get() >= MAX_PENDING) {
      PENDING.clear();
      SIZE.set(0);
    }
    Key key = new Key();
    key.task = task;
    if (PENDING.put(key, context) == null) {
      SIZE.incrementAndGet();
    }
  }

  /** The context noted for {@code task}, removed; null when none (or nothing is pending). */
  public static SluiceContext take(Object task) {
    if (SIZE.get() == 0) {
      return null;
    }
    Key lookup = LOOKUP.get();
    lookup.task = task;
    try {
      SluiceContext context = PENDING.remove(lookup);
      if (context != null) {
        SIZE.decrementAndGet();
      }
      return context;
    } finally {
      lookup.task = null;
    }
  }

  /** A task by identity. */
  private static final class Key {
    Object task;

    @Override
    public int hashCode() {
      return System.identityHashCode(task);
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Key && ((Key) other).task == task;
    }
  }
}
