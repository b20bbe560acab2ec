package io.sluice.flow.internal.stats;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

  @Test
  void placesEveryValueInABucketThatContainsIt() {
    for (long v = 0; v < (1L << 37); v = v * 3 / 2 + 7) {
      int b = LatencyHistogram.bucketOf(v);
      assertThat(b).isBetween(0, LatencyHistogram.BUCKETS - 1);
      if (b < LatencyHistogram.BUCKETS - 1) {
        assertThat(v).isGreaterThanOrEqualTo(LatencyHistogram.lowerBound(b));
        assertThat(v).isLessThan(LatencyHistogram.upperBound(b));
      }
    }
  }

  @Test
  void readsPercentilesWithinTwelvePercent() {
    long[] counts = new long[LatencyHistogram.BUCKETS];
    // 98 calls of 1 ms, 2 calls of 250 ms.
    counts[LatencyHistogram.bucketOf(1_000_000)] = 98;
    counts[LatencyHistogram.bucketOf(250_000_000)] = 2;
    long p50 = LatencyHistogram.percentile(counts, 100, 0.5);
    long p99 = LatencyHistogram.percentile(counts, 100, 0.99);
    assertThat((double) p50).isBetween(0.88e6, 1.12e6);
    assertThat((double) p99).isBetween(0.88 * 250e6, 1.12 * 250e6);
    assertThat(LatencyHistogram.percentile(counts, 0, 0.5)).isZero();
  }
}
