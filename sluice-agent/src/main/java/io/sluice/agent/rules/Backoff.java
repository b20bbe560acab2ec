package io.sluice.agent.rules;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff between failed calls to the config center: {@code initial × 2^n}, capped at
 * {@code max}, spread by ±20% jitter so a fleet of instances does not retry in step. Not
 * thread-safe; owned by the watcher thread.
 */
final class Backoff {
  private final long initialMillis;
  private final long maxMillis;
  private final DoubleSupplier jitter;
  private int failures;

  /**
   * @param jitter uniform in [0, 1); tests pass a constant
   */
  Backoff(Duration initial, Duration max, DoubleSupplier jitter) {
    if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException("need 0 < initial <= max, got " + initial + ", " + max);
    }
    this.initialMillis = initial.toMillis();
    this.maxMillis = max.toMillis();
    this.jitter = jitter;
  }

  /** The wait before the next attempt, after one more failure. */
  Duration next() {
    long base = initialMillis << Math.min(failures, 30);
    if (base <= 0 || base > maxMillis) {
      base = maxMillis;
    }
    failures++;
    double spread = 0.8 + 0.4 * jitter.getAsDouble();
    return Duration.ofMillis(Math.max(1, Math.round(base * spread)));
  }

  /** A call succeeded: the next failure starts from {@code initial} again. */
  void reset() {
    failures = 0;
  }

  int failures() {
    return failures;
  }
}
