package io.sluice.server.naming;

/** A naming request that breaks a rule (service name, ip, port, metadata...); nothing changed. */
public final class InvalidInstanceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InvalidInstanceException(String message) {
    super(message);
  }
}
