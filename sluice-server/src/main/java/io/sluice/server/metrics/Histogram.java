package io.sluice.server.metrics;

import java.util.concurrent.atomic.LongAdder;

/**
 * Durations counted in fixed buckets, as a Prometheus histogram: from 100 µs to 30 s, roughly
 * 1-2.5-5 per decade, plus the sum. The bounds never change, so a scrape and a recording need no
 * coordination.
 *
 * <p>Concurrency: {@link #record} may run on any thread at any time; it increments two {@link
 * LongAdder}s (no lock, no allocation once a contended adder has its cells). A scrape reads the
 * adders without stopping writers, so one scrape may see a duration in its bucket but not yet in
 * the sum; the next scrape is consistent again.
 */
public final class Histogram {
  /** Upper bounds of the buckets, in ns; a last, implicit bucket holds everything above. */
  static final long[] BOUNDS_NANOS = {
    100_000L,
    250_000L,
    500_000L,
    1_000_000L,
    2_500_000L,
    5_000_000L,
    10_000_000L,
    25_000_000L,
    50_000_000L,
    100_000_000L,
    250_000_000L,
    500_000_000L,
    1_000_000_000L,
    2_500_000_000L,
    5_000_000_000L,
    10_000_000_000L,
    30_000_000_000L
  };

  /** The bounds as Prometheus writes them ({@code le} in seconds), computed once. */
  static final String[] BOUNDS_SECONDS = new String[BOUNDS_NANOS.length];

  static {
    for (int i = 0; i < BOUNDS_NANOS.length; i++) {
      BOUNDS_SECONDS[i] =
          new java.math.BigDecimal(BOUNDS_NANOS[i])
              .movePointLeft(9)
              .stripTrailingZeros()
              .toPlainString();
    }
  }

  private final LongAdder[] buckets = new LongAdder[BOUNDS_NANOS.length + 1];
  private final LongAdder sumNanos = new LongAdder();

  public Histogram() {
    for (int i = 0; i < buckets.length; i++) {
      buckets[i] = new LongAdder();
    }
  }

  /** Counts one duration; a negative one (a clock that stepped) counts as zero. */
  public void record(long nanos) {
    long d = Math.max(0, nanos);
    int i = 0;
    while (i < BOUNDS_NANOS.length && d > BOUNDS_NANOS[i]) {
      i++;
    }
    buckets[i].increment();
    sumNanos.add(d);
  }

  /** Durations counted so far. */
  public long count() {
    long n = 0;
    for (LongAdder bucket : buckets) {
      n += bucket.sum();
    }
    return n;
  }

  /** Per-bucket counts (not cumulative), the last one above every bound. */
  long[] bucketCounts() {
    long[] out = new long[buckets.length];
    for (int i = 0; i < buckets.length; i++) {
      out[i] = buckets[i].sum();
    }
    return out;
  }

  long sumNanos() {
    return sumNanos.sum();
  }
}
