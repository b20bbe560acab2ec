package io.sluice.flow.internal.flow;

import io.sluice.flow.internal.limit.SlidingWindowLimiter;
import io.sluice.flow.internal.limit.WarmUpModel;
import io.sluice.flow.internal.rule.FlowRuleSpec;

/**
 * QPS with warm-up and fast reject: the exact sliding window, with the number of calls per window
 * lowered to the warm-up model's current rate (at least one call per second).
 */
final class WarmUpRejectCheck extends FlowCheck {

  private final SlidingWindowLimiter limiter;
  private final WarmUpModel model;

  WarmUpRejectCheck(FlowRuleSpec rule, int serial) {
    super(rule, serial);
    this.limiter = SlidingWindowLimiter.forRate(rule.count(), 1.0, SlidingWindowLimiter.MAX_BLOCKS);
    this.model =
        rule.count() >= 1
            ? new WarmUpModel(rule.count(), rule.warmUpPeriodSec(), rule.coldFactor())
            : null;
  }

  @Override
  public long tryAcquire(long now, String origin, String entrance) {
    if (model == null) {
      return limiter.tryAcquire(now) ? 0 : -1;
    }
    double rate = model.allowedRate(now, limiter.admittedCount());
    int blocks = limiter.blocksFor(Math.max(1, (long) Math.floor(rate)));
    return limiter.tryAcquire(now, Math.max(1, blocks)) ? 0 : -1;
  }
}
