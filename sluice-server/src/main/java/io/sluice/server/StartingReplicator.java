package io.sluice.server;

import io.sluice.server.replication.Replicator;
import io.sluice.server.replication.ReplicatorNotReadyException;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replicator that is still starting. Opening the log and electing the one peer takes about a
 * second, which the server spends starting its network ports in parallel; until the real replicator
 * is there, writes wait for it and readiness is false. If it fails to start, writes and {@link
 * #ready()} fail with the cause.
 */
final class StartingReplicator implements Replicator, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StartingReplicator.class);

  private final CompletableFuture<Replicator> starting;

  StartingReplicator(CompletableFuture<Replicator> starting) {
    this.starting = starting;
  }

  @Override
  public CompletableFuture<Object> submit(String stateName, byte[] command) {
    Replicator started = started();
    if (started != null) {
      return started.submit(stateName, command);
    }
    if (starting.isCompletedExceptionally()) {
      return CompletableFuture.failedFuture(
          new ReplicatorNotReadyException("the store failed to start", failure()));
    }
    return starting.thenCompose(replicator -> replicator.submit(stateName, command));
  }

  @Override
  public boolean isReady() {
    Replicator started = started();
    return started != null && started.isReady();
  }

  @Override
  public CompletableFuture<Void> ready() {
    return starting.thenCompose(Replicator::ready);
  }

  /** Why the store could not start, or null. */
  Throwable failure() {
    if (!starting.isCompletedExceptionally()) {
      return null;
    }
    try {
      starting.join();
      return null;
    } catch (RuntimeException e) {
      return e.getCause() != null ? e.getCause() : e;
    }
  }

  private Replicator started() {
    return starting.isDone() && !starting.isCompletedExceptionally() ? starting.join() : null;
  }

  @Override
  public void close() {
    try {
      Replicator replicator = starting.join();
      if (replicator instanceof AutoCloseable closeable) {
        closeable.close();
      }
    } catch (Exception e) {
      log.debug("store was not running at close", e);
    }
  }
}
