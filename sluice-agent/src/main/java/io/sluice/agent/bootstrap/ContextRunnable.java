package io.sluice.agent.bootstrap;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A task that runs with the governance context of the thread that handed it over, and restores the
 * worker's own context afterwards. Executor advice wraps tasks with {@link #wrap(Runnable)} and
 * {@link #wrap(Callable)}, which return the task unchanged when there is no context: the common
 * case allocates nothing.
 *
 * <p>A wrapped {@link RunnableFuture} stays a {@code RunnableFuture} (see {@link Future}), so
 * executor hooks such as {@code afterExecute} that inspect the task as a future keep working.
 */
public class ContextRunnable implements Runnable {
  final SluiceContext context;
  final Runnable task;

  ContextRunnable(SluiceContext context, Runnable task) {
    this.context = context;
    this.task = task;
  }

  /** {@code task}, wrapped to carry the current context when there is one. */
  public static Runnable wrap(Runnable task) {
    SluiceContext context = SluiceContext.current();
    if (context == null || task == null || task instanceof ContextRunnable) {
      return task;
    }
    if (task instanceof RunnableFuture) {
      return new ContextFuture<>(context, (RunnableFuture<?>) task);
    }
    return new ContextRunnable(context, task);
  }

  /**
   * The task of a thread being created ({@code new Thread(task)}), wrapped to carry the current
   * context; left alone when it is a thread pool's or an event loop's own loop (a pool worker, a
   * Netty or Reactor loop started during a request), which would otherwise keep the request's
   * context for its whole life.
   */
  public static Runnable wrapForNewThread(Runnable task) {
    if (task == null || SluiceContext.current() == null) {
      return task;
    }
    String type = task.getClass().getName();
    if (type.startsWith("java.util.concurrent.")
        || type.startsWith("io.netty.")
        || type.startsWith("reactor.")
        || type.startsWith("org.apache.tomcat.")
        || type.startsWith("org.eclipse.jetty.")
        || type.startsWith("io.undertow.")
        || type.startsWith("org.xnio.")
        || type.startsWith("jdk.internal.")
        || type.startsWith("sun.")) {
      return task;
    }
    return wrap(task);
  }

  /** {@code task}, wrapped to carry the current context when there is one. */
  public static <V> Callable<V> wrap(Callable<V> task) {
    SluiceContext context = SluiceContext.current();
    if (context == null || task == null || task instanceof ContextCallable) {
      return task;
    }
    return new ContextCallable<>(context, task);
  }

  @Override
  public void run() {
    SluiceContext previous = SluiceContext.swap(context);
    try {
      task.run();
    } finally {
      SluiceContext.swap(previous);
    }
  }

  @Override
  public String toString() {
    return task.toString();
  }

  /** A wrapped future task: runs in the context, delegates the future's methods. */
  static final class ContextFuture<V> extends ContextRunnable implements RunnableFuture<V> {
    private final RunnableFuture<V> future;

    ContextFuture(SluiceContext context, RunnableFuture<V> future) {
      super(context, future);
      this.future = future;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      return future.cancel(mayInterruptIfRunning);
    }

    @Override
    public boolean isCancelled() {
      return future.isCancelled();
    }

    @Override
    public boolean isDone() {
      return future.isDone();
    }

    @Override
    public V get() throws InterruptedException, ExecutionException {
      return future.get();
    }

    @Override
    public V get(long timeout, TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException {
      return future.get(timeout, unit);
    }
  }

  /** The {@link Callable} counterpart. */
  static final class ContextCallable<V> implements Callable<V> {
    private final SluiceContext context;
    private final Callable<V> task;

    ContextCallable(SluiceContext context, Callable<V> task) {
      this.context = context;
      this.task = task;
    }

    @Override
    public V call() throws Exception {
      SluiceContext previous = SluiceContext.swap(context);
      try {
        return task.call();
      } finally {
        SluiceContext.swap(previous);
      }
    }
  }
}
