package io.sluice.bench.agent;

import java.util.Arrays;

/**
 * The latency one copy of a system adds over another, from requests sent to both at the same
 * instants: the median of the per-request differences {@code b[i] - a[i]}.
 *
 * <p>Why this and not the difference of the two medians: if both copies saw noise of the same
 * distribution (however skewed, as scheduler stalls are), the difference of two independent draws
 * of it is symmetric around zero, so the median of the differences is the shift one copy adds; and
 * whatever both copies suffer in the same instant (the machine's stalls) cancels within a pair
 * instead of landing in one copy's window. What remains is noise that hits one copy and not the
 * other, which pairing cannot remove.
 *
 * <p>Two ranges come with it. {@code ciLow..ciHigh} is the distribution-free 95 % interval of the
 * median (order statistics {@code n/2 ± 0.98 √n}), valid only if requests were independent, which
 * they are not (a stall delays the requests queued behind it): it is the smallest the uncertainty
 * could be. {@code blockLow..blockHigh} is the range of the same median computed over {@code
 * blocks} consecutive slices of the window: stalls are local in time, so this shows how much a
 * slice of seconds moves the answer, and is the honest resolution of one window.
 */
record PairedDifference(
    int pairs,
    double medianMicros,
    double ciLowMicros,
    double ciHighMicros,
    double blockLowMicros,
    double blockHighMicros) {

  /**
   * From two latency arrays indexed by request number (-1 where a request failed); only the
   * requests both answered count.
   */
  static PairedDifference of(long[] a, long[] b, int blocks) {
    if (a.length != b.length) {
      throw new IllegalArgumentException(
          "both copies must be sent the same requests: " + a.length + " vs " + b.length);
    }
    if (blocks < 1) {
      throw new IllegalArgumentException("blocks must be at least 1, not " + blocks);
    }
    double[] all = differences(a, b, 0, a.length);
    if (all.length == 0) {
      return new PairedDifference(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
    Arrays.sort(all);
    int n = all.length;
    double halfWidth = 0.98 * Math.sqrt(n);
    int low = (int) Math.max(0, Math.floor(n / 2.0 - halfWidth));
    int high = (int) Math.min(n - 1, Math.ceil(n / 2.0 + halfWidth));
    double blockLow = Double.POSITIVE_INFINITY;
    double blockHigh = Double.NEGATIVE_INFINITY;
    for (int k = 0; k < blocks; k++) {
      double[] block = differences(a, b, k * a.length / blocks, (k + 1) * a.length / blocks);
      if (block.length > 0) {
        Arrays.sort(block);
        double median = median(block);
        blockLow = Math.min(blockLow, median);
        blockHigh = Math.max(blockHigh, median);
      }
    }
    return new PairedDifference(
        n,
        median(all) / 1000.0,
        all[low] / 1000.0,
        all[high] / 1000.0,
        blockLow / 1000.0,
        blockHigh / 1000.0);
  }

  /** The differences of requests {@code from} (inclusive) to {@code to} that both answered. */
  private static double[] differences(long[] a, long[] b, int from, int to) {
    double[] d = new double[to - from];
    int n = 0;
    for (int i = from; i < to; i++) {
      if (a[i] >= 0 && b[i] >= 0) {
        d[n++] = b[i] - a[i];
      }
    }
    return Arrays.copyOf(d, n);
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
