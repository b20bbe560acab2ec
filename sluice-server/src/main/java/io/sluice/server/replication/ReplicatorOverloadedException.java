package io.sluice.server.replication;

/**
 * The bounded queue of pending submissions is full: the command was refused at once and nothing was
 * written. The caller may retry later or report "busy" to its own client.
 */
public final class ReplicatorOverloadedException extends ReplicationException {
  public ReplicatorOverloadedException(String message) {
    super(message);
  }
}
