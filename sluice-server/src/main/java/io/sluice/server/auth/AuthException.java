package io.sluice.server.auth;

import io.sluice.server.feature.Fault;
import io.sluice.server.feature.FeatureException;

/**
 * Why an auth request was not carried out: no valid credentials, no permission, input breaking a
 * rule, a store that cannot take writes. Nothing was changed.
 */
public final class AuthException extends FeatureException {
  private static final long serialVersionUID = 1L;

  public AuthException(Fault fault, String message, Throwable cause) {
    super(fault, message, cause);
  }

  static AuthException invalid(String message) {
    return new AuthException(Fault.INVALID, message, null);
  }

  static AuthException unauthenticated(String message) {
    return new AuthException(Fault.UNAUTHENTICATED, message, null);
  }

  static AuthException forbidden(String message) {
    return new AuthException(Fault.FORBIDDEN, message, null);
  }
}
