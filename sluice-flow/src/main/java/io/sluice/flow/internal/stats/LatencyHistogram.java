package io.sluice.flow.internal.stats;

/**
 * Bucket layout for response times: quarter-octave buckets from 1 µs to 2^36 ns (about 69 s), one
 * bucket below 1 µs and one above. A value is placed with a leading-zero count and a shift; a
 * percentile is read as the middle of its bucket, so it is within about 12 % of the true value.
 */
public final class LatencyHistogram {

  private static final int MIN_OCTAVE = 10;
  private static final int MAX_OCTAVE = 35;
  private static final int SUB_BUCKETS = 4;

  /** Number of buckets. */
  public static final int BUCKETS = 2 + (MAX_OCTAVE - MIN_OCTAVE + 1) * SUB_BUCKETS;

  private LatencyHistogram() {}

  /** The bucket of a response time in ns. */
  public static int bucketOf(long nanos) {
    if (nanos < (1L << MIN_OCTAVE)) {
      return 0;
    }
    int octave = 63 - Long.numberOfLeadingZeros(nanos);
    if (octave > MAX_OCTAVE) {
      return BUCKETS - 1;
    }
    int sub = (int) (nanos >>> (octave - 2)) & (SUB_BUCKETS - 1);
    return 1 + (octave - MIN_OCTAVE) * SUB_BUCKETS + sub;
  }

  /** Smallest value of a bucket. */
  public static long lowerBound(int bucket) {
    if (bucket == 0) {
      return 0;
    }
    if (bucket == BUCKETS - 1) {
      return 1L << (MAX_OCTAVE + 1);
    }
    int octave = MIN_OCTAVE + (bucket - 1) / SUB_BUCKETS;
    int sub = (bucket - 1) % SUB_BUCKETS;
    return (long) (SUB_BUCKETS + sub) << (octave - 2);
  }

  /** One past the largest value of a bucket. */
  public static long upperBound(int bucket) {
    if (bucket == BUCKETS - 1) {
      return 1L << (MAX_OCTAVE + 2);
    }
    return lowerBound(bucket + 1);
  }

  /** The middle of the bucket holding the {@code quantile} of {@code total} values. */
  public static long percentile(long[] counts, long total, double quantile) {
    if (total <= 0) {
      return 0;
    }
    long rank = (long) Math.ceil(Math.min(1, Math.max(0, quantile)) * total);
    rank = Math.max(1, rank);
    long seen = 0;
    for (int b = 0; b < counts.length; b++) {
      seen += counts[b];
      if (seen >= rank) {
        return (lowerBound(b) + upperBound(b)) / 2;
      }
    }
    return (lowerBound(BUCKETS - 1) + upperBound(BUCKETS - 1)) / 2;
  }

  /** The middle of a bucket, a percentile's value. */
  static long middle(int bucket) {
    return (lowerBound(bucket) + upperBound(bucket)) / 2;
  }
}
