package io.sluice.flow.internal.flow;

import io.sluice.flow.internal.limit.Pacer;
import io.sluice.flow.internal.rule.FlowRuleSpec;

/** Sentinel's RATE_LIMITER: calls spaced {@code 1/count} apart, waiting at most the maximum. */
final class PacingCheck extends FlowCheck {

  private final Pacer pacer;
  private final long interval;

  PacingCheck(FlowRuleSpec rule, int serial) {
    super(rule, serial);
    this.pacer = new Pacer(rule.maxQueueingTimeMs() * 1_000_000L);
    this.interval = rule.count() > 0 ? Pacer.intervalFor(rule.count()) : 0;
  }

  @Override
  public long tryAcquire(long now, String origin, String entrance) {
    return interval == 0 ? -1 : pacer.tryAcquire(now, interval);
  }
}
