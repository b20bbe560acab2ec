package io.sluice.server.replication;

import java.util.concurrent.CompletableFuture;

/** Orders, persists and applies commands to {@link ReplicatedState}s. */
public interface Replicator {
  /**
   * Submits a command for the named state. The future completes with the state's apply() outcome
   * only after the command is committed (durable: fsynced on a majority; in standalone on this
   * node's disk) AND applied locally, so a read right after sees it (read-your-writes). Fails with
   * a clear exception when the replicator is overloaded (bounded queue), not ready, or closed.
   */
  CompletableFuture<Object> submit(String stateName, byte[] command);

  /** Log replayed, leader elected, accepting writes. */
  boolean isReady();

  CompletableFuture<Void> ready();
}
