package io.sluice.server.config;

import io.sluice.server.feature.Fault;
import io.sluice.server.feature.FeatureException;

/** Why the config center did not carry out a request; nothing was changed unless it says so. */
public final class ConfigException extends FeatureException {
  private static final long serialVersionUID = 1L;

  public ConfigException(Fault fault, String message, Throwable cause) {
    super(fault, message, cause);
  }

  static ConfigException invalid(String message) {
    return new ConfigException(Fault.INVALID, message, null);
  }

  static ConfigException tooLarge(long bytes, long limit) {
    return new ConfigException(
        Fault.TOO_LARGE, "content is " + bytes + " bytes; the limit is " + limit + " bytes", null);
  }
}
