package io.sluice.flow;

/**
 * Waits for a paced call's turn in {@link Resource#enter()}. Tests inject one that advances their
 * fake {@link Ticker}; the default parks the thread.
 */
@FunctionalInterface
public interface Sleeper {

  /** Waits about {@code nanos} nanoseconds; may return early when interrupted. */
  void sleep(long nanos);

  /** Parks the calling thread ({@link java.util.concurrent.locks.LockSupport#parkNanos}). */
  static Sleeper parking() {
    return java.util.concurrent.locks.LockSupport::parkNanos;
  }
}
