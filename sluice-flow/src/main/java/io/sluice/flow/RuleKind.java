package io.sluice.flow;

/**
 * The five kinds of rule, one Sentinel JSON document each; also says which kind of rule blocked a
 * call (the agent answers 429 for flow, parameter and system blocks and 503 for an open breaker).
 */
public enum RuleKind {
  /** Sentinel {@code FlowRule}: QPS, concurrency, warm-up, pacing. */
  FLOW,
  /** Sentinel {@code DegradeRule}: circuit breakers. */
  DEGRADE,
  /** Sentinel {@code ParamFlowRule}: per-argument-value limits. */
  PARAM_FLOW,
  /** Sentinel {@code SystemRule}: adaptive protection of all inbound traffic. */
  SYSTEM,
  /** Sentinel {@code AuthorityRule}: origin white and black lists. */
  AUTHORITY
}
