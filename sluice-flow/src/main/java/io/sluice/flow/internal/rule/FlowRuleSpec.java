package io.sluice.flow.internal.rule;

import io.sluice.flow.RuleKind;

/**
 * A Sentinel {@code FlowRule}, validated.
 *
 * @param resource the resource name, or a regular expression when {@code regex}
 * @param regex whether {@code resource} is a pattern matched against resource names
 * @param origins who the rule applies to
 * @param grade {@link #GRADE_THREAD} or {@link #GRADE_QPS}
 * @param count the threshold
 * @param strategy {@link #STRATEGY_DIRECT}, {@link #STRATEGY_RELATE} or {@link #STRATEGY_CHAIN}
 * @param refResource the related resource (RELATE) or the entrance (CHAIN); null for DIRECT
 * @param controlBehavior {@link #BEHAVIOR_REJECT}, {@link #BEHAVIOR_WARM_UP}, {@link
 *     #BEHAVIOR_PACING} or {@link #BEHAVIOR_WARM_UP_PACING}
 * @param warmUpPeriodSec warm-up period, used by the warm-up behaviours
 * @param maxQueueingTimeMs longest wait a pacing behaviour may impose
 * @param coldFactor how much slower than {@code count} a cold resource starts (Sluice field)
 * @param clusterMode the rule's {@code clusterMode}; Sluice enforces such rules locally
 */
public record FlowRuleSpec(
    String resource,
    boolean regex,
    OriginScope origins,
    int grade,
    double count,
    int strategy,
    String refResource,
    int controlBehavior,
    double warmUpPeriodSec,
    long maxQueueingTimeMs,
    double coldFactor,
    boolean clusterMode)
    implements RuleSpec {

  public static final int GRADE_THREAD = 0;
  public static final int GRADE_QPS = 1;
  public static final int STRATEGY_DIRECT = 0;
  public static final int STRATEGY_RELATE = 1;
  public static final int STRATEGY_CHAIN = 2;
  public static final int BEHAVIOR_REJECT = 0;
  public static final int BEHAVIOR_WARM_UP = 1;
  public static final int BEHAVIOR_PACING = 2;
  public static final int BEHAVIOR_WARM_UP_PACING = 3;

  @Override
  public RuleKind kind() {
    return RuleKind.FLOW;
  }

  @Override
  public String describe() {
    StringBuilder s = new StringBuilder("flow rule {resource=").append(resource);
    if (regex) {
      s.append(" (regex)");
    }
    s.append(", limitApp=").append(origins);
    s.append(grade == GRADE_QPS ? ", grade=QPS" : ", grade=THREAD");
    s.append(", count=").append(count);
    if (strategy == STRATEGY_RELATE) {
      s.append(", strategy=RELATE, refResource=").append(refResource);
    } else if (strategy == STRATEGY_CHAIN) {
      s.append(", strategy=CHAIN, refResource=").append(refResource);
    }
    switch (controlBehavior) {
      case BEHAVIOR_WARM_UP ->
          s.append(", controlBehavior=WARM_UP, warmUpPeriodSec=").append(warmUpPeriodSec);
      case BEHAVIOR_PACING ->
          s.append(", controlBehavior=RATE_LIMITER, maxQueueingTimeMs=").append(maxQueueingTimeMs);
      case BEHAVIOR_WARM_UP_PACING ->
          s.append(", controlBehavior=WARM_UP_RATE_LIMITER, warmUpPeriodSec=")
              .append(warmUpPeriodSec)
              .append(", maxQueueingTimeMs=")
              .append(maxQueueingTimeMs);
      default -> {}
    }
    return s.append('}').toString();
  }
}
