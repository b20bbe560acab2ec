package io.sluice.server.naming;

/** An HTTP client would exceed the limit on beating clients or on services per client. */
public final class TooManyBeatClientsException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public TooManyBeatClientsException(String message) {
    super(message);
  }
}
