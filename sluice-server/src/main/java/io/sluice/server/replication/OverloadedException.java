package io.sluice.server.replication;

/** The replicator's queue of pending writes is full; the caller should back off and retry. */
public final class OverloadedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public OverloadedException(String message) {
    super(message);
  }
}
