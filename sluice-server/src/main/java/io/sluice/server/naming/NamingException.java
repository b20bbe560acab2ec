package io.sluice.server.naming;

import io.sluice.server.feature.Fault;
import io.sluice.server.feature.FeatureException;

/**
 * Why the registry did not carry out a request: a malformed service, instance or metadata, a limit
 * on clients, a store that cannot take writes. Nothing was changed.
 */
public final class NamingException extends FeatureException {
  private static final long serialVersionUID = 1L;

  public NamingException(Fault fault, String message, Throwable cause) {
    super(fault, message, cause);
  }

  public static NamingException invalid(String message) {
    return new NamingException(Fault.INVALID, message, null);
  }

  static NamingException overloaded(String message) {
    return new NamingException(Fault.OVERLOADED, message, null);
  }
}
