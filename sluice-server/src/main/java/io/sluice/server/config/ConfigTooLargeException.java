package io.sluice.server.config;

/** Content above the configured size limit; nothing was changed. */
public final class ConfigTooLargeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ConfigTooLargeException(long bytes, long limit) {
    super("content is " + bytes + " bytes; the limit is " + limit + " bytes");
  }
}
