package io.sluice.bench.load;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Latencies (microsecond resolution, up to an hour), successes, failures and bytes of one measured
 * quantity, recorded from any thread without locks. {@link #reset} opens the measurement window and
 * {@link #snapshot} closes it: what was recorded between them is the result.
 */
final class LatencyStats {
  private static final long HIGHEST_MICROS = TimeUnit.HOURS.toMicros(1);

  private final Recorder recorder = new Recorder(HIGHEST_MICROS, 3);
  private final LongAdder errors = new LongAdder();
  private final LongAdder events = new LongAdder();
  private final LongAdder bytes = new LongAdder();

  /** A success that took {@code nanos}. */
  void record(long nanos) {
    recorder.recordValue(Math.min(HIGHEST_MICROS, Math.max(0, nanos / 1_000)));
  }

  void error() {
    errors.increment();
  }

  /** Something counted without a latency, such as a push that matched no change. */
  void event(long byteCount) {
    events.increment();
    bytes.add(byteCount);
  }

  void reset() {
    recorder.reset();
    errors.reset();
    events.reset();
    bytes.reset();
  }

  Snapshot snapshot() {
    return new Snapshot(recorder.getIntervalHistogram(), errors.sum(), events.sum(), bytes.sum());
  }

  record Snapshot(Histogram histogram, long errors, long events, long bytes) {
    long count() {
      return histogram.getTotalCount();
    }

    double percentileMillis(double percentile) {
      return histogram.getTotalCount() == 0
          ? Double.NaN
          : histogram.getValueAtPercentile(percentile) / 1_000.0;
    }

    double maxMillis() {
      return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getMaxValue() / 1_000.0;
    }
  }
}
