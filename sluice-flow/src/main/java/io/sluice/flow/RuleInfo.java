package io.sluice.flow;

import io.sluice.flow.internal.rule.AuthorityRuleSpec;
import io.sluice.flow.internal.rule.FlowRuleSpec;
import io.sluice.flow.internal.rule.OriginScope;
import io.sluice.flow.internal.rule.ParamFlowRuleSpec;
import io.sluice.flow.internal.rule.RuleSpec;
import java.util.Set;

/**
 * What a loaded rule asks for, in the terms a caller needs to say whether it can take effect where
 * the caller applies it: which resource, which callers, which entrance or related resource, whether
 * it paces calls, where a hot-parameter rule takes its value. A read-only view of one rule of a
 * {@link RuleDocument}.
 *
 * @param kind the rule's kind
 * @param resource the resource (a pattern when {@code regex}); null for system rules
 * @param regex whether {@code resource} is a regular expression (flow rules)
 * @param limitApp Sentinel's {@code limitApp} as loaded: {@code default}, {@code other} or the
 *     named origins, comma-separated (an authority rule's list)
 * @param namedOrigins the origins {@code limitApp} names; empty for {@code default} and {@code
 *     other}
 * @param strategy the flow rule's strategy ({@link Strategy#DIRECT} for other kinds)
 * @param refResource the related resource (RELATE) or entrance (CHAIN); null otherwise
 * @param paced whether admitted calls may have to wait (a rate-limiter behaviour)
 * @param paramIdx the argument a hot-parameter rule limits; null when it reads {@code paramSource}
 *     or is not a hot-parameter rule
 * @param paramSource the call attribute a hot-parameter rule limits, or null
 * @param clusterMode the rule's {@code clusterMode} (enforced locally)
 * @param description the rule in one line, as block messages name it
 */
public record RuleInfo(
    RuleKind kind,
    String resource,
    boolean regex,
    String limitApp,
    Set<String> namedOrigins,
    Strategy strategy,
    String refResource,
    boolean paced,
    Integer paramIdx,
    ParamSource paramSource,
    boolean clusterMode,
    String description) {

  /** Sentinel's flow strategies. */
  public enum Strategy {
    DIRECT,
    RELATE,
    CHAIN
  }

  static RuleInfo of(RuleSpec spec) {
    if (spec instanceof FlowRuleSpec f) {
      Strategy strategy =
          switch (f.strategy()) {
            case FlowRuleSpec.STRATEGY_RELATE -> Strategy.RELATE;
            case FlowRuleSpec.STRATEGY_CHAIN -> Strategy.CHAIN;
            default -> Strategy.DIRECT;
          };
      boolean paced =
          f.controlBehavior() == FlowRuleSpec.BEHAVIOR_PACING
              || f.controlBehavior() == FlowRuleSpec.BEHAVIOR_WARM_UP_PACING;
      return new RuleInfo(
          RuleKind.FLOW,
          f.resource(),
          f.regex(),
          f.origins().toString(),
          f.origins().kind() == OriginScope.Kind.NAMED ? f.origins().names() : Set.of(),
          strategy,
          f.refResource(),
          paced,
          null,
          null,
          f.clusterMode(),
          f.describe());
    }
    if (spec instanceof ParamFlowRuleSpec p) {
      return new RuleInfo(
          RuleKind.PARAM_FLOW,
          p.resource(),
          false,
          "default",
          Set.of(),
          Strategy.DIRECT,
          null,
          p.controlBehavior() == FlowRuleSpec.BEHAVIOR_PACING,
          p.source() == null ? p.paramIdx() : null,
          p.source(),
          false,
          p.describe());
    }
    if (spec instanceof AuthorityRuleSpec a) {
      return new RuleInfo(
          RuleKind.AUTHORITY,
          a.resource(),
          false,
          String.join(",", new java.util.TreeSet<>(a.origins())),
          a.origins(),
          Strategy.DIRECT,
          null,
          false,
          null,
          null,
          false,
          a.describe());
    }
    // Degrade and system rules: nothing beyond their resource (none for system rules).
    return new RuleInfo(
        spec.kind(),
        spec.resource(),
        false,
        "default",
        Set.of(),
        Strategy.DIRECT,
        null,
        false,
        null,
        null,
        false,
        spec.describe());
  }
}
