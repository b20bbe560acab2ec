package io.sluice.bench.agent;

import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

/**
 * The machinery of a cold-cache benchmark ({@link DubboAdviceColdBenchmark}, {@link
 * GatewayAdviceColdBenchmark}): named variants run in rounds, each round every variant once in a
 * shuffled order; before each call an untimed sweep reads one long per 64-byte line of a buffer, so
 * the call finds its lines in memory; each call's time is kept per variant, and the report gives
 * each variant's quartiles over the median of variant 0, which must be the timer alone.
 *
 * <p>Invariants: {@link #upcoming()} and {@link #take()} alternate, one pair per call, and name the
 * same variant; a round ends only when every variant has been taken once; samples are kept only
 * while {@link #measuring(boolean) measuring}, the last {@value #MAX_SAMPLES} per variant. One
 * thread (JMH's, {@code Scope.Thread}).
 */
final class ColdRounds {
  static final int MAX_SAMPLES = 1 << 16;

  private final String[] variants;
  private final int sweepKiB;
  private final long[] buffer;
  private final int[] order;
  private final Random shuffle = new Random(12);
  private final long[][] samples;
  private final int[] counts;
  private int cursor;
  private boolean measuring;
  private long swept; // written so that the sweep's reads are not optimized away

  ColdRounds(String[] variants, int sweepKiB) {
    if (variants.length == 0 || !"baseline".equals(variants[0])) {
      throw new IllegalArgumentException("variant 0 must be the baseline (the timer alone)");
    }
    this.variants = variants.clone();
    this.sweepKiB = sweepKiB;
    buffer = new long[sweepKiB * 128];
    for (int i = 0; i < buffer.length; i++) {
      buffer[i] = i;
    }
    order = new int[variants.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    cursor = order.length;
    samples = new long[variants.length][MAX_SAMPLES];
    counts = new int[variants.length];
  }

  /** The index of a variant by name; throws if there is none. */
  static int indexOf(String[] variants, String variant) {
    int index = Arrays.asList(variants).indexOf(variant);
    if (index < 0) {
      throw new IllegalArgumentException(variant);
    }
    return index;
  }

  int indexOf(String variant) {
    return indexOf(variants, variant);
  }

  /** The variant the next call times, reshuffling when a round is over; call before the sweep. */
  int upcoming() {
    if (cursor == order.length) {
      for (int i = order.length - 1; i > 0; i--) {
        int j = shuffle.nextInt(i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
      cursor = 0;
    }
    return order[cursor];
  }

  /** Evicts the caches: one read per 64-byte line of the buffer. */
  void evictCaches() {
    long[] b = buffer;
    long sum = 0;
    for (int i = 0; i < b.length; i += 8) {
      sum += b[i];
    }
    swept += sum;
  }

  /** The variant to time now: the one {@link #upcoming()} named. */
  int take() {
    return order[cursor++];
  }

  void measuring(boolean measuring) {
    this.measuring = measuring;
  }

  void record(int variant, long nanos) {
    if (measuring) {
      samples[variant][counts[variant]++ & (MAX_SAMPLES - 1)] = nanos;
    }
  }

  /** The {@code q} quantile of a variant's kept samples, in ns (0 when it has none). */
  long percentile(int variant, double q) {
    int n = Math.min(counts[variant], MAX_SAMPLES);
    if (n == 0) {
      return 0;
    }
    long[] sorted = Arrays.copyOf(samples[variant], n);
    Arrays.sort(sorted);
    return sorted[(int) Math.min(n - 1, Math.floor(q * n))];
  }

  /** A variant's median in ns. */
  long median(String variant) {
    return percentile(indexOf(variant), 0.5);
  }

  /** One {@code cold:} line per variant: its quartiles over the baseline's median, in us. */
  String coldLines() {
    int width = 0;
    for (String variant : variants) {
      width = Math.max(width, variant.length());
    }
    long base = percentile(0, 0.5);
    StringBuilder out = new StringBuilder();
    for (int v = 0; v < variants.length; v++) {
      out.append(
          String.format(
              Locale.ROOT,
              "cold: sweepKiB=%d %-"
                  + width
                  + "s  p50 %7.2f  p25 %7.2f  p75 %7.2f  us over baseline"
                  + "  (baseline p50 %.2f, n=%d)%n",
              sweepKiB,
              variants[v],
              (percentile(v, 0.5) - base) / 1e3,
              (percentile(v, 0.25) - base) / 1e3,
              (percentile(v, 0.75) - base) / 1e3,
              base / 1e3,
              Math.min(counts[v], MAX_SAMPLES)));
    }
    return out.toString();
  }

  /**
   * A {@code pair:} line: new − old and the A/A control (a copy of new − new), differences of
   * medians in us.
   */
  String pairLine(String what, String now, String before, String same) {
    double fresh = median(now);
    return String.format(
        Locale.ROOT,
        "pair: sweepKiB=%d %-15s new-old %+7.2f  A/A %+7.2f  us  (%s - %s, %s - %s)%n",
        sweepKiB,
        what,
        (fresh - median(before)) / 1e3,
        (median(same) - fresh) / 1e3,
        now,
        before,
        same,
        now);
  }
}
