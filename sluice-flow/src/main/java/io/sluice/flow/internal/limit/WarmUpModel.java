package io.sluice.flow.internal.limit;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The allowed rate of a warming-up resource: Guava's and Sentinel's token model. Tokens accumulate
 * while the resource is idle (up to a maximum: cold) and are spent by admitted calls; above the
 * warning level the allowed rate falls linearly in the interval from {@code count} to {@code count
 * / coldFactor}. A cold resource therefore starts at a third of its rate (cold factor 3) and
 * reaches the full rate after about {@code warmUpPeriodSec} of traffic.
 *
 * <p>The tokens are brought up to date once per second of the caller's clock, by the one caller
 * that wins a CAS on the second; everybody else reads the rate computed then. The model only sets a
 * rate at or below {@code count}; the limiter it feeds keeps the exactness guarantee.
 */
public final class WarmUpModel {

  private static final long SECOND = 1_000_000_000L;

  private final double count;
  private final double coldFactor;
  private final double warningTokens;
  private final double maxTokens;
  private final double slope;
  private final AtomicLong syncedSecond = new AtomicLong(Long.MIN_VALUE);

  /** Written only under {@code this} by the caller that won the second's CAS. */
  private double storedTokens;

  private long lastAdmitted;
  private volatile double allowedRate;

  /**
   * @param count the stable rate, > 0
   * @param warmUpPeriodSec how long warming up takes, > 0
   * @param coldFactor how much slower a cold resource starts, > 1
   */
  public WarmUpModel(double count, double warmUpPeriodSec, double coldFactor) {
    this.count = count;
    this.coldFactor = coldFactor;
    this.warningTokens = warmUpPeriodSec * count / (coldFactor - 1);
    this.maxTokens = warningTokens + 2 * warmUpPeriodSec * count / (1 + coldFactor);
    this.slope = (coldFactor - 1) / count / (maxTokens - warningTokens);
    this.storedTokens = maxTokens;
    this.allowedRate = rateFor(maxTokens);
  }

  /** The rate allowed with {@code tokens} stored. */
  double rateFor(double tokens) {
    if (tokens >= warningTokens) {
      return 1.0 / ((tokens - warningTokens) * slope + 1.0 / count);
    }
    return count;
  }

  /**
   * The rate allowed at {@code now}.
   *
   * @param now ns on the owner's clock
   * @param admittedSoFar the limiter's running count of admitted calls (spends tokens)
   */
  public double allowedRate(long now, long admittedSoFar) {
    long second = now / SECOND;
    long synced = syncedSecond.get();
    if (second > synced && syncedSecond.compareAndSet(synced, second)) {
      sync(synced == Long.MIN_VALUE ? 0 : second - synced, admittedSoFar);
    }
    return allowedRate;
  }

  private synchronized void sync(long elapsedSeconds, long admittedSoFar) {
    long passed = Math.max(0, admittedSoFar - lastAdmitted);
    lastAdmitted = admittedSoFar;
    if (elapsedSeconds == 0) {
      return;
    }
    double tokens = storedTokens;
    double recentRate = (double) passed / elapsedSeconds;
    if (tokens < warningTokens || (tokens > warningTokens && recentRate < count / coldFactor)) {
      tokens += elapsedSeconds * count;
    }
    tokens = Math.max(0, Math.min(tokens, maxTokens) - passed);
    storedTokens = tokens;
    allowedRate = rateFor(tokens);
  }
}
