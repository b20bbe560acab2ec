package io.sluice.flow;

/** The caller's origin is not allowed by an authority rule. */
public final class AuthorityBlockedException extends BlockedException {

  private static final long serialVersionUID = 1L;

  AuthorityBlockedException(String resource, String rule) {
    super(resource, rule);
  }

  @Override
  public RuleKind kind() {
    return RuleKind.AUTHORITY;
  }
}
