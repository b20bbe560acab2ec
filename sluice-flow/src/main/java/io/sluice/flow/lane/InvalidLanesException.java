package io.sluice.flow.lane;

/** A lane document that cannot be applied; the message names the fault and where it is. */
public final class InvalidLanesException extends Exception {
  private static final long serialVersionUID = 1L;

  InvalidLanesException(String message) {
    super(message);
  }
}
