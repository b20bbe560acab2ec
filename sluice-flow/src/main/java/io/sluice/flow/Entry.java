package io.sluice.flow;

/**
 * An admitted call in synchronous code, for try-with-resources: closing it releases the permit.
 * Report a failure with {@link #fail} (typically in a catch block) before it closes. Not for
 * sharing between threads; use the permit API for that.
 */
public final class Entry implements AutoCloseable {

  private final Resource resource;
  private final long permit;
  private boolean failed;
  private boolean closed;

  Entry(Resource resource, long permit) {
    this.resource = resource;
    this.permit = permit;
  }

  /** Counts this call as failed (for error statistics and circuit breakers). */
  public void fail(Throwable error) {
    failed = true;
  }

  /** Counts this call as failed. */
  public void markFailed() {
    failed = true;
  }

  /** The permit, for callers that want to decode it. */
  public long permit() {
    return permit;
  }

  /** Releases the call (once; later calls do nothing). */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      resource.release(permit, failed);
    }
  }
}
