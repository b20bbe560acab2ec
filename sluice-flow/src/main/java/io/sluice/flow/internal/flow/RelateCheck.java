package io.sluice.flow.internal.flow;

import io.sluice.flow.internal.rule.FlowRuleSpec;
import io.sluice.flow.internal.stats.LiveStatistics;

/**
 * Sentinel's RELATE strategy: this resource is rejected while the related resource is busy, i.e.
 * its admitted calls in the last complete second (QPS grade) or its calls in flight (THREAD grade)
 * plus one would exceed {@code count}. Like Sentinel's, this is a statistical rule: it reads the
 * related resource's statistics and does not reserve anything there.
 */
final class RelateCheck extends FlowCheck {

  private final LiveStatistics related;

  RelateCheck(FlowRuleSpec rule, int serial, LiveStatistics related) {
    super(rule, serial);
    this.related = related;
  }

  @Override
  public long tryAcquire(long now, String origin, String entrance) {
    long busy =
        rule().grade() == FlowRuleSpec.GRADE_QPS
            ? related.passedInLastSecond(now)
            : related.inFlight();
    return busy + 1 > rule().count() ? -1 : 0;
  }
}
