package io.sluice.server.replication;

/**
 * The replicator was closed before the command was acknowledged. A command that was already in the
 * log may still be applied after the next start: the outcome is unknown, as after a crash.
 */
public final class ReplicatorClosedException extends ReplicationException {
  public ReplicatorClosedException(String message) {
    super(message);
  }
}
