package io.sluice.server.replication;

/** The command is larger than {@link ReplicationOptions#maxCommandBytes()}; nothing was written. */
public final class CommandTooLargeException extends ReplicationException {
  public CommandTooLargeException(String message) {
    super(message);
  }
}
