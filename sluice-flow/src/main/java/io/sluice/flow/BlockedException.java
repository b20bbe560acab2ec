package io.sluice.flow;

/**
 * Thrown by {@link Resource#enter()} when a rule rejects the call. The subclass names the kind of
 * rule and the message names the rule itself. No stack trace is filled in: a rejection is an
 * expected outcome, and under overload it happens at the full request rate.
 */
public abstract class BlockedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String resource;
  private final String rule;

  BlockedException(String resource, String rule) {
    super(resource + " blocked by " + rule, null, false, false);
    this.resource = resource;
    this.rule = rule;
  }

  /** The kind of rule that blocked. */
  public abstract RuleKind kind();

  /** The resource that was entered. */
  public String resource() {
    return resource;
  }

  /** A description of the rule that blocked, with its fields. */
  public String rule() {
    return rule;
  }

  static BlockedException of(RuleKind kind, String resource, String rule) {
    return switch (kind) {
      case FLOW -> new FlowBlockedException(resource, rule);
      case DEGRADE -> new CircuitOpenException(resource, rule);
      case PARAM_FLOW -> new ParamFlowBlockedException(resource, rule);
      case SYSTEM -> new SystemBlockedException(resource, rule);
      case AUTHORITY -> new AuthorityBlockedException(resource, rule);
    };
  }
}
