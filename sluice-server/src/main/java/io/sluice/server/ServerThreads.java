package io.sluice.server;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Every thread the server creates for itself, named, and closed together: the scheduler of periodic
 * work, the store's supervisor, the config fan-out, the naming push thread, password hashing, and
 * Vert.x (the HTTP event loops and its two workers). gRPC's event loops and the store's threads
 * belong to those parts.
 */
final class ServerThreads implements AutoCloseable {
  private static final long CLOSE_TIMEOUT_SECONDS = 5;
  private static final long VERTX_CLOSE_TIMEOUT_SECONDS = 30;

  /** Event loops of each network port: two cores, two loops. */
  final int eventLoops = Math.min(2, Runtime.getRuntime().availableProcessors());

  /** Sweeps, health-check rounds, history purges, push retries of config listeners. */
  final ScheduledExecutorService scheduler = scheduled("sluice-scheduler");

  /**
   * Watches the store and the disk it writes to, and starts restarts of a failed store: alone on
   * its thread, so that however busy {@link #scheduler} is (replicating a large registration), a
   * stopped store is noticed and restarted on time.
   */
  final ScheduledExecutorService storeSupervisor = scheduled("sluice-store-supervisor");

  /** Tells config watchers of changes, one key at a time. */
  final ExecutorService fanout = Executors.newSingleThreadExecutor(daemon("sluice-fanout"));

  /** Pushes naming changes to subscribers, and their retries. */
  final ScheduledExecutorService pushThread = scheduled("sluice-push");

  /**
   * Hashes and checks passwords (slow on purpose), one at a time; logins beyond {@value
   * #HASHING_QUEUE} waiting are refused rather than queued without bound.
   */
  final ExecutorService hashing =
      new ThreadPoolExecutor(
          1,
          1,
          0,
          TimeUnit.MILLISECONDS,
          new ArrayBlockingQueue<>(HASHING_QUEUE),
          daemon("sluice-auth-hashing"));

  private static final int HASHING_QUEUE = 64;

  /** Writes client-fault lines off the event loops; lines beyond its queue are dropped. */
  final ExecutorService faultLogWriter =
      new ThreadPoolExecutor(
          1,
          1,
          0,
          TimeUnit.MILLISECONDS,
          new ArrayBlockingQueue<>(256),
          daemon("sluice-fault-log"));

  final Vertx vertx =
      Vertx.vertx(
          new VertxOptions()
              .setEventLoopPoolSize(eventLoops)
              .setWorkerPoolSize(2)
              .setInternalBlockingPoolSize(2));

  @Override
  public void close() throws InterruptedException {
    try {
      await(vertx.close(), VERTX_CLOSE_TIMEOUT_SECONDS);
    } finally {
      for (ExecutorService executor :
          new ExecutorService[] {
            pushThread, fanout, scheduler, storeSupervisor, hashing, faultLogWriter
          }) {
        executor.shutdownNow();
      }
      for (ExecutorService executor :
          new ExecutorService[] {
            pushThread, fanout, scheduler, storeSupervisor, hashing, faultLogWriter
          }) {
        executor.awaitTermination(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      }
    }
  }

  private static void await(Future<?> future, long seconds) throws InterruptedException {
    try {
      future.toCompletionStage().toCompletableFuture().get(seconds, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("Vert.x did not close: " + e.getMessage(), e);
    }
  }

  private static ScheduledExecutorService scheduled(String name) {
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, daemon(name));
    executor.setRemoveOnCancelPolicy(true);
    return executor;
  }

  private static ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
