package io.sluice.flow.internal.rule;

import io.sluice.flow.ParamSource;
import io.sluice.flow.RuleKind;
import java.util.Map;

/**
 * A Sentinel {@code ParamFlowRule} (hot-parameter limit, QPS grade), validated.
 *
 * @param resource the resource
 * @param paramIdx which argument; negative counts from the end as in Sentinel; unused with a source
 * @param source the call attribute the value comes from instead of an argument (Sluice's {@code
 *     paramSource}), or null to take argument {@code paramIdx}
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
    ParamSource source,
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
    StringBuilder s = new StringBuilder("param-flow rule {resource=").append(resource);
    if (source != null) {
      s.append(", paramSource=").append(source);
    } else {
      s.append(", paramIdx=").append(paramIdx);
    }
    s.append(", count=").append(count).append(", durationInSec=").append(durationInSec);
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
