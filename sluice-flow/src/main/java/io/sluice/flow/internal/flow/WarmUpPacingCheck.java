package io.sluice.flow.internal.flow;

import io.sluice.flow.internal.limit.Pacer;
import io.sluice.flow.internal.limit.WarmUpModel;
import io.sluice.flow.internal.rule.FlowRuleSpec;

/** Sentinel's WARM_UP_RATE_LIMITER: pacing at the warm-up model's current rate. */
final class WarmUpPacingCheck extends FlowCheck {

  private final Pacer pacer;
  private final WarmUpModel model;

  WarmUpPacingCheck(FlowRuleSpec rule, int serial) {
    super(rule, serial);
    this.pacer = new Pacer(rule.maxQueueingTimeMs() * 1_000_000L);
    this.model =
        rule.count() > 0
            ? new WarmUpModel(rule.count(), rule.warmUpPeriodSec(), rule.coldFactor())
            : null;
  }

  @Override
  public long tryAcquire(long now, String origin, String entrance) {
    if (model == null) {
      return -1;
    }
    double rate = model.allowedRate(now, pacer.admittedCount());
    return pacer.tryAcquire(now, Pacer.intervalFor(rate));
  }
}
