package io.sluice.flow.internal.limit;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Spaces admitted calls at least one interval apart (a virtual queue: Sentinel's RATE_LIMITER
 * behaviour). A call gets the earliest free start at or after {@code now}; if it would wait longer
 * than {@code maxWaitNanos} it is rejected. One CAS claims the start, so concurrent callers never
 * share a slot (Sentinel's check-then-set lets several through, #3091), and nanosecond arithmetic
 * keeps rates above 1,000 per second and below 1 per second exact.
 *
 * <p>Guarantee: scheduled starts are at least {@code interval} apart, so any window of length
 * {@code W} holds at most {@code ceil(W / interval)} of them.
 */
public final class Pacer {

  private static final VarHandle NEXT_FREE;
  private static final VarHandle ADMITTED;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      NEXT_FREE = lookup.findVarHandle(Pacer.class, "nextFree", long.class);
      ADMITTED = lookup.findVarHandle(Pacer.class, "admitted", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final long maxWaitNanos;
  private volatile long nextFree = Long.MIN_VALUE;
  private volatile long admitted;

  /**
   * @param maxWaitNanos the longest wait a caller may be given
   */
  public Pacer(long maxWaitNanos) {
    this.maxWaitNanos = Math.max(0, maxWaitNanos);
  }

  /** The interval for {@code perSecond} calls per second, rounded up; {@code perSecond > 0}. */
  public static long intervalFor(double perSecond) {
    double nanos = Math.ceil(1e9 / perSecond);
    return nanos >= Long.MAX_VALUE / 4 ? Long.MAX_VALUE / 4 : Math.max(1, (long) nanos);
  }

  /**
   * Claims a start for a call arriving at {@code now}.
   *
   * @param intervalNanos spacing to the next call, > 0
   * @return the wait in ns (0 = go now), or -1 if the wait would exceed the maximum
   */
  public long tryAcquire(long now, long intervalNanos) {
    while (true) {
      long next = nextFree;
      long start = Math.max(next, now);
      long wait = start - now;
      if (wait > maxWaitNanos) {
        return -1;
      }
      if (NEXT_FREE.compareAndSet(this, next, start + intervalNanos)) {
        ADMITTED.getAndAdd(this, 1L);
        return wait;
      }
    }
  }

  /** How many calls this pacer has admitted since it was created. */
  public long admittedCount() {
    return admitted;
  }
}
