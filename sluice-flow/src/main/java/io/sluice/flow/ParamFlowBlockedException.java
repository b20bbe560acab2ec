package io.sluice.flow;

/** A hot-parameter rule rejected the call for its argument value. */
public final class ParamFlowBlockedException extends BlockedException {

  private static final long serialVersionUID = 1L;

  ParamFlowBlockedException(String resource, String rule) {
    super(resource, rule);
  }

  @Override
  public RuleKind kind() {
    return RuleKind.PARAM_FLOW;
  }
}
