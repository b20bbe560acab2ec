package io.sluice.flow.internal.flow;

import io.sluice.flow.internal.rule.FlowRuleSpec;

/**
 * One flow rule's check as compiled for one resource (and, for per-origin rules, one origin).
 * Checks hold the rule's admission state; a reload that keeps the rule keeps the check.
 */
public abstract class FlowCheck {

  private final FlowRuleSpec rule;
  private final int serial;

  FlowCheck(FlowRuleSpec rule, int serial) {
    this.rule = rule;
    this.serial = serial;
  }

  /** The rule. */
  public final FlowRuleSpec rule() {
    return rule;
  }

  /** The rule's serial number in its registry (reported in blocked permits). */
  public final int serial() {
    return serial;
  }

  /**
   * Admits a call at {@code now}.
   *
   * @param origin the caller's origin, or null
   * @param entrance the entrance the call came through, or null
   * @return the wait in ns before the call may start (0 = now), or -1 if rejected
   */
  public abstract long tryAcquire(long now, String origin, String entrance);
}
