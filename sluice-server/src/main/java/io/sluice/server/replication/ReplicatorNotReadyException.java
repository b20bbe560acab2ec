package io.sluice.server.replication;

/**
 * This node cannot accept writes now: the log is still being replayed, no leader is elected, or
 * another peer is the leader (followers do not forward writes yet). Nothing was written, unless the
 * exception says the outcome is unknown.
 */
public final class ReplicatorNotReadyException extends ReplicationException {
  public ReplicatorNotReadyException(String message) {
    super(message);
  }

  public ReplicatorNotReadyException(String message, Throwable cause) {
    super(message, cause);
  }
}
