package io.sluice.flow;

import io.sluice.flow.internal.stats.LatencyHistogram;

/**
 * What happened on a resource during one window (a 100 ms sub-window, the last second, a one-second
 * slot, the last minute). Immutable.
 */
public final class WindowStatistics {

  private final long endNanos;
  private final long lengthNanos;
  private final long passed;
  private final long blocked;
  private final long failed;
  private final long timed;
  private final long rtSumNanos;
  private final long rtMaxNanos;
  private final long[] histogram;
  private final long completed;

  /**
   * @param endNanos the end of the window on the registry's clock (ns since it started)
   * @param lengthNanos the window's length
   * @param untimed completions that were not timed
   * @param histogram timed completions per latency bucket ({@link LatencyHistogram}), not copied
   */
  public WindowStatistics(
      long endNanos,
      long lengthNanos,
      long passed,
      long blocked,
      long failed,
      long untimed,
      long rtSumNanos,
      long rtMaxNanos,
      long[] histogram) {
    this.endNanos = endNanos;
    this.lengthNanos = lengthNanos;
    this.passed = passed;
    this.blocked = blocked;
    this.failed = failed;
    this.rtSumNanos = rtSumNanos;
    this.rtMaxNanos = rtMaxNanos;
    this.histogram = histogram;
    long sum = 0;
    for (long n : histogram) {
      sum += n;
    }
    this.timed = sum;
    this.completed = sum + untimed;
  }

  /** End of the window, ns on the registry's clock. */
  public long endNanos() {
    return endNanos;
  }

  /** Length of the window in ns. */
  public long lengthNanos() {
    return lengthNanos;
  }

  /** Calls admitted. */
  public long passed() {
    return passed;
  }

  /** Calls rejected by a rule. */
  public long blocked() {
    return blocked;
  }

  /** Calls released (successful or failed). */
  public long completed() {
    return completed;
  }

  /** Calls released as failed. */
  public long failed() {
    return failed;
  }

  /** Calls released without failure. */
  public long succeeded() {
    return Math.max(0, completed - failed);
  }

  /**
   * Completed calls that were timed: all of them unless the resource ran above about 100,000 calls
   * per second and no rule needed every response time, in which case a sample.
   */
  public long timedCompletions() {
    return timed;
  }

  /** Sum of response times of the timed calls. */
  public long rtSumNanos() {
    return rtSumNanos;
  }

  /** Longest response time of a timed call. */
  public long rtMaxNanos() {
    return rtMaxNanos;
  }

  /** Mean response time of the timed calls, 0 when none completed. */
  public double averageRtNanos() {
    return timed == 0 ? 0 : (double) rtSumNanos / timed;
  }

  /** Admitted calls per second over the window. */
  public double passPerSecond() {
    return passed * 1e9 / lengthNanos;
  }

  /**
   * The response time below which {@code quantile} of the timed calls fell, within the histogram's
   * resolution (about ±12 %); 0 when none completed.
   *
   * @param quantile in [0, 1], e.g. 0.99
   */
  public long percentileNanos(double quantile) {
    return LatencyHistogram.percentile(histogram, timed, quantile);
  }

  @Override
  public String toString() {
    return "{passed="
        + passed
        + ", blocked="
        + blocked
        + ", completed="
        + completed
        + ", failed="
        + failed
        + ", avgRtNanos="
        + (long) averageRtNanos()
        + ", maxRtNanos="
        + rtMaxNanos
        + ", p50Nanos="
        + percentileNanos(0.5)
        + ", p99Nanos="
        + percentileNanos(0.99)
        + "}";
  }
}
