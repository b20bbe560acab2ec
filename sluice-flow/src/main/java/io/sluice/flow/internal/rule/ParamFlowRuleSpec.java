package io.sluice.flow.internal.rule;

import io.sluice.flow.RuleKind;
import java.util.Map;

/**
 * A Sentinel {@code ParamFlowRule} (hot-parameter limit, QPS grade), validated.
 *
 * @param resource the resource
 * @param paramIdx which argument; negative counts from the end as in Sentinel
 * @param count calls per value per {@code durationInSec}
 * @param controlBehavior {@link FlowRuleSpec#BEHAVIOR_REJECT} or {@link
 *     FlowRuleSpec#BEHAVIOR_PACING}
 * @param maxQueueingTimeMs longest wait when pacing
 * @param burstCount calls allowed on top of {@code count} in a window
 * @param durationInSec the window length
 * @param exceptions per-value thresholds ({@code paramFlowItemList}), keyed by the typed value
 */
public record ParamFlowRuleSpec(
    String resource,
    int paramIdx,
    double count,
    int controlBehavior,
    long maxQueueingTimeMs,
    long burstCount,
    long durationInSec,
    Map<Object, Long> exceptions)
    implements RuleSpec {

  @Override
  public RuleKind kind() {
    return RuleKind.PARAM_FLOW;
  }

  @Override
  public String describe() {
    StringBuilder s =
        new StringBuilder("param-flow rule {resource=")
            .append(resource)
            .append(", paramIdx=")
            .append(paramIdx)
            .append(", count=")
            .append(count)
            .append(", durationInSec=")
            .append(durationInSec);
    if (burstCount > 0) {
      s.append(", burstCount=").append(burstCount);
    }
    if (controlBehavior == FlowRuleSpec.BEHAVIOR_PACING) {
      s.append(", controlBehavior=RATE_LIMITER, maxQueueingTimeMs=").append(maxQueueingTimeMs);
    }
    if (!exceptions.isEmpty()) {
      s.append(", paramFlowItemList=").append(exceptions);
    }
    return s.append('}').toString();
  }
}
