package io.sluice.agent.rules;

/** A rule document that could not be parsed or holds no usable rule; the old rules stay. */
public final class InvalidRulesException extends Exception {
  private static final long serialVersionUID = 1L;

  public InvalidRulesException(String message, Throwable cause) {
    super(message, cause);
  }
}
