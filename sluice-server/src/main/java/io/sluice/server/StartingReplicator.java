package io.sluice.server;

import io.sluice.server.replication.GroupStatus;
import io.sluice.server.replication.RatisReplicator;
import io.sluice.server.replication.ReplicationPeer;
import io.sluice.server.replication.Replicator;
import io.sluice.server.replication.ReplicatorNotReadyException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicator the features write through while the real one starts. Opening the log and electing
 * the one peer takes about a second, which the server spends starting its network ports in
 * parallel; until the real replicator is there, writes wait for it and readiness is false. If it
 * fails to start, writes and {@link #ready()} fail with the cause.
 *
 * <p>It exists before the replicated states, so that every feature can be built in one step with
 * its writes going here; {@link #start} then starts the real one once all states are known.
 */
final class StartingReplicator implements Replicator, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StartingReplicator.class);

  private final CompletableFuture<Replicator> starting = new CompletableFuture<>();
  private final boolean standalone;
  private volatile boolean startRequested;

  /**
   * @param standalone whether the store is a one-peer group: then reads need no barrier even while
   *     it starts (they see what is there, as before the store is ready); a cluster node refuses
   *     linearizable reads until its store runs
   */
  StartingReplicator(boolean standalone) {
    this.standalone = standalone;
  }

  /** Starts the real replicator on a thread of its own; returns at once. */
  void start(Supplier<Replicator> replicator) {
    startRequested = true;
    Thread starter =
        new Thread(
            () -> {
              try {
                starting.complete(replicator.get());
              } catch (RuntimeException | Error e) {
                starting.completeExceptionally(e);
              }
            },
            "sluice-store-start");
    starter.setDaemon(true);
    starter.start();
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
  public CompletableFuture<Void> readBarrier() {
    Replicator started = started();
    if (started != null) {
      return started.readBarrier();
    }
    if (standalone) {
      return NO_BARRIER;
    }
    return CompletableFuture.failedFuture(
        new ReplicatorNotReadyException("the store is starting", failure()));
  }

  @Override
  public CompletableFuture<Void> ready() {
    return starting.thenCompose(Replicator::ready);
  }

  /** Whether this node leads the replication group now (always, in standalone once started). */
  boolean isLeader() {
    Replicator started = started();
    return started instanceof RatisReplicator ratis ? ratis.isLeader() : isReady();
  }

  /** The replication group as this node sees it, once a Ratis store runs here. */
  Optional<GroupStatus> groupStatus() {
    return started() instanceof RatisReplicator ratis
        ? Optional.of(ratis.groupStatus())
        : Optional.empty();
  }

  /** Changes the group's membership (see {@link RatisReplicator#changeMembers}). */
  CompletableFuture<Void> changeMembers(List<ReplicationPeer> members) {
    return started() instanceof RatisReplicator ratis
        ? ratis.changeMembers(members)
        : CompletableFuture.failedFuture(new ReplicatorNotReadyException("the store is starting"));
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
    if (!startRequested) {
      // Never started (an earlier part of the server failed): nothing to close.
      starting.completeExceptionally(new ReplicatorNotReadyException("the server is closing"));
    }
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
