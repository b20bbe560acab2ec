package io.sluice.flow;

/** A flow rule (QPS, concurrency, warm-up or pacing) rejected the call. */
public final class FlowBlockedException extends BlockedException {

  private static final long serialVersionUID = 1L;

  FlowBlockedException(String resource, String rule) {
    super(resource, rule);
  }

  @Override
  public RuleKind kind() {
    return RuleKind.FLOW;
  }
}
