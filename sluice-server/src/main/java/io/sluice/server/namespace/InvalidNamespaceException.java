package io.sluice.server.namespace;

/**
 * A namespace request that breaks a rule (id pattern, lengths, the public namespace); nothing was
 * changed.
 */
public final class InvalidNamespaceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InvalidNamespaceException(String message) {
    super(message);
  }
}
