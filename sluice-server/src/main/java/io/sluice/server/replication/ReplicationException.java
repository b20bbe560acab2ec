package io.sluice.server.replication;

/** Why a submitted command was not, or not successfully, replicated and applied. */
public class ReplicationException extends RuntimeException {
  public ReplicationException(String message) {
    super(message);
  }

  public ReplicationException(String message, Throwable cause) {
    super(message, cause);
  }
}
