package io.sluice.server.config;

/** A request to change a config that breaks a rule; nothing was changed. */
public final class InvalidConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InvalidConfigException(String message) {
    super(message);
  }
}
