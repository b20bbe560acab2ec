package io.sluice.flow.internal.flow;

import io.sluice.flow.internal.rule.FlowRuleSpec;
import io.sluice.flow.internal.stats.LiveStatistics;
import java.util.concurrent.atomic.AtomicLong;

/** Builds the check for a flow rule. */
public final class FlowChecks {

  private FlowChecks() {}

  /**
   * The check for one DIRECT or CHAIN QPS rule (one origin's worth of state); THREAD DIRECT rules
   * are enforced by the resource's concurrency counter, RELATE by {@link #relate}.
   */
  public static FlowCheck limiter(FlowRuleSpec rule, int serial) {
    FlowCheck check =
        switch (rule.controlBehavior()) {
          case FlowRuleSpec.BEHAVIOR_WARM_UP -> new WarmUpRejectCheck(rule, serial);
          case FlowRuleSpec.BEHAVIOR_PACING -> new PacingCheck(rule, serial);
          case FlowRuleSpec.BEHAVIOR_WARM_UP_PACING -> new WarmUpPacingCheck(rule, serial);
          default -> new RejectCheck(rule, serial);
        };
    return rule.strategy() == FlowRuleSpec.STRATEGY_CHAIN ? new ChainCheck(check) : check;
  }

  /** A RELATE rule reading the related resource's statistics. */
  public static FlowCheck relate(FlowRuleSpec rule, int serial, LiveStatistics related) {
    return new RelateCheck(rule, serial, related);
  }

  /** A {@code limitApp: "other"} rule with one limiter per origin. */
  public static FlowCheck perOrigin(
      FlowRuleSpec rule, int serial, int maxOrigins, AtomicLong overflowCounter) {
    return new PerOriginCheck(
        limiter(rule, serial), () -> limiter(rule, serial), maxOrigins, overflowCounter);
  }
}
