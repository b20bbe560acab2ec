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
}
