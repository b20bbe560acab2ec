package io.sluice.server.replication;

import java.util.concurrent.CompletableFuture;

/**
 * Turns commands into durable, ordered, replicated changes of {@link ReplicatedState}s.
 *
 * <p>What a completed future promises: the command is in the replicated log on disk (fsynced on a
 * majority of peers; in standalone on this node's disk), it has been applied to the local state,
 * and the future holds the state's apply() outcome. A read of the local state right after sees the
 * write (read-your-writes).
 */
public interface Replicator {
  /** The barrier of a replicator whose applied state is always the newest (standalone). */
  CompletableFuture<Void> NO_BARRIER = CompletableFuture.completedFuture(null);

  /**
   * Submits a command for the named state. Never blocks and never throws for a runtime condition:
   * every failure arrives through the future, as {@link ReplicatorOverloadedException} (too many
   * submissions pending), {@link ReplicatorNotReadyException} (not started, not leader), {@link
   * ReplicatorClosedException}, {@link CommandTooLargeException}, {@link IllegalArgumentException}
   * (no state of that name) or {@link StateApplyException} (the state's apply threw).
   *
   * <p>The replicator keeps {@code command}; the caller must not modify it afterwards.
   */
  CompletableFuture<Object> submit(String stateName, byte[] command);

  /** Log replayed, leader elected (this node), accepting writes. */
  boolean isReady();

  /** Completes the first time the replicator becomes ready; fails if it is closed before. */
  CompletableFuture<Void> ready();

  /**
   * Completes once this node's state holds every write acknowledged (on any node) before the call,
   * so a read that follows is linearizable; fails with {@link ReplicatorNotReadyException} when
   * that cannot be established (no leader reachable). The default is for replicators whose local
   * state is always the newest: one node, writes acknowledged after they are applied here.
   */
  default CompletableFuture<Void> readBarrier() {
    return NO_BARRIER;
  }
}
