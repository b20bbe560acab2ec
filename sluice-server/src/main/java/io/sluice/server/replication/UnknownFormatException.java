package io.sluice.server.replication;

/**
 * A state met a command in a format newer than this version of the server reads: a newer server
 * wrote the log (a downgrade, or a follower behind in a rolling upgrade). Thrown from {@link
 * ReplicatedState#apply}, it stops replication on this node instead of skipping the command, as a
 * malformed batch does: skipping would silently lose the write and let replicas diverge.
 */
public final class UnknownFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UnknownFormatException(String message) {
    super(message);
  }
}
