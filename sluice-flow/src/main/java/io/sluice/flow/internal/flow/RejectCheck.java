package io.sluice.flow.internal.flow;

import io.sluice.flow.internal.limit.SlidingWindowLimiter;
import io.sluice.flow.internal.rule.FlowRuleSpec;

/** QPS with fast reject: an exact sliding window of one second. */
final class RejectCheck extends FlowCheck {

  private final SlidingWindowLimiter limiter;

  RejectCheck(FlowRuleSpec rule, int serial) {
    super(rule, serial);
    this.limiter = SlidingWindowLimiter.forRate(rule.count(), 1.0, SlidingWindowLimiter.MAX_BLOCKS);
  }

  @Override
  public long tryAcquire(long now, String origin, String entrance) {
    return limiter.tryAcquire(now) ? 0 : -1;
  }
}
