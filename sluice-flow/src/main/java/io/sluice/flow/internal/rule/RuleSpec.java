package io.sluice.flow.internal.rule;

import io.sluice.flow.RuleKind;

/**
 * One validated rule. Specs are immutable values: two specs are equal exactly when they mean the
 * same rule, which is how a reload recognises an unchanged rule and keeps its state.
 */
public sealed interface RuleSpec
    permits FlowRuleSpec, DegradeRuleSpec, ParamFlowRuleSpec, SystemRuleSpec, AuthorityRuleSpec {

  /** The document kind this rule came from. */
  RuleKind kind();

  /** The resource the rule names, or null for system rules (which apply to all inbound traffic). */
  String resource();

  /** A one-line description with the rule's fields, for block messages and logs. */
  String describe();
}
