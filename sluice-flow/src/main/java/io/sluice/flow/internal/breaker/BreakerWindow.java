package io.sluice.flow.internal.breaker;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts calls and bad calls (slow or failed) over a sliding interval in ten buckets, for one
 * circuit breaker. Each bucket is one {@code long} packing the bucket's epoch (24 bits), bad calls
 * and all calls (20 bits each, saturating), so a call is one CAS and a bucket can never be reset
 * under a writer's feet (the race Sentinel's LeapArray has, #2949): a writer that finds an old
 * epoch replaces the whole word. A read sums the buckets whose epochs fall in the interval.
 */
final class BreakerWindow {

  static final int BUCKETS = 10;
  private static final int RING = 16;
  private static final int COUNT_BITS = 20;
  private static final long COUNT_MAX = (1L << COUNT_BITS) - 1;
  private static final int EPOCH_SHIFT = 2 * COUNT_BITS;
  private static final long EPOCH_MASK = (1L << (64 - EPOCH_SHIFT)) - 1;

  private final long bucketNanos;
  private final AtomicLongArray buckets = new AtomicLongArray(RING);

  /** Buckets before this epoch are ignored: the window restarts when the breaker closes. */
  private volatile long countFromEpoch;

  BreakerWindow(long intervalNanos) {
    this.bucketNanos = Math.max(1, (intervalNanos + BUCKETS - 1) / BUCKETS);
  }

  void record(long now, boolean bad) {
    long epoch = now / bucketNanos;
    int index = (int) (epoch & (RING - 1));
    long tag = epoch & EPOCH_MASK;
    while (true) {
      long word = buckets.get(index);
      long next;
      if ((word >>> EPOCH_SHIFT) == tag) {
        long total = Math.min(COUNT_MAX, (word & COUNT_MAX) + 1);
        long badCount = (word >>> COUNT_BITS) & COUNT_MAX;
        if (bad) {
          badCount = Math.min(COUNT_MAX, badCount + 1);
        }
        next = (tag << EPOCH_SHIFT) | (badCount << COUNT_BITS) | total;
      } else {
        next = (tag << EPOCH_SHIFT) | ((bad ? 1L : 0L) << COUNT_BITS) | 1L;
      }
      if (word == next || buckets.compareAndSet(index, word, next)) {
        return;
      }
    }
  }

  /** Calls in the interval ending at {@code now}: {@code [total, bad]} packed as total<<32|bad. */
  long totalsAt(long now) {
    long epoch = now / bucketNanos;
    long from = Math.max(epoch - BUCKETS + 1, countFromEpoch);
    long total = 0;
    long bad = 0;
    for (long e = from; e <= epoch; e++) {
      long word = buckets.get((int) (e & (RING - 1)));
      if ((word >>> EPOCH_SHIFT) == (e & EPOCH_MASK)) {
        total += word & COUNT_MAX;
        bad += (word >>> COUNT_BITS) & COUNT_MAX;
      }
    }
    return (total << 32) | bad;
  }

  /** Forgets everything before the bucket holding {@code now}, and that bucket's calls so far. */
  void restart(long now) {
    long epoch = now / bucketNanos;
    countFromEpoch = epoch;
    buckets.set((int) (epoch & (RING - 1)), 0L);
  }
}
