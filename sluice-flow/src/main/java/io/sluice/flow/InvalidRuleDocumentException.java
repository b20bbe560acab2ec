package io.sluice.flow;

/**
 * A rule document was rejected as a whole: it is not JSON, not an array of rule objects, or a rule
 * in it is invalid. The message names the rule (by position and resource) and the field. The
 * registry keeps the rules it had.
 */
public final class InvalidRuleDocumentException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final RuleKind kind;

  public InvalidRuleDocumentException(RuleKind kind, String message) {
    super(kind + " rules rejected: " + message);
    this.kind = kind;
  }

  /** The kind of document that was rejected. */
  public RuleKind kind() {
    return kind;
  }
}
