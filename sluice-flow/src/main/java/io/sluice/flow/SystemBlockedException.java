package io.sluice.flow;

/** System adaptive protection rejected an inbound call. */
public final class SystemBlockedException extends BlockedException {

  private static final long serialVersionUID = 1L;

  SystemBlockedException(String resource, String rule) {
    super(resource, rule);
  }

  @Override
  public RuleKind kind() {
    return RuleKind.SYSTEM;
  }
}
