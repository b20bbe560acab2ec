package io.sluice.flow;

/** A circuit breaker is open (or half-open with all probes taken). */
public final class CircuitOpenException extends BlockedException {

  private static final long serialVersionUID = 1L;

  CircuitOpenException(String resource, String rule) {
    super(resource, rule);
  }

  @Override
  public RuleKind kind() {
    return RuleKind.DEGRADE;
  }
}
