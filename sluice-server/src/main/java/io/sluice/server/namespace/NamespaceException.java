package io.sluice.server.namespace;

import io.sluice.server.feature.Fault;
import io.sluice.server.feature.FeatureException;

/**
 * Why a namespace request was not carried out (an id, name or description breaking a rule, the
 * public namespace, a store that cannot take writes); nothing was changed.
 */
public final class NamespaceException extends FeatureException {
  private static final long serialVersionUID = 1L;

  public NamespaceException(Fault fault, String message, Throwable cause) {
    super(fault, message, cause);
  }

  static NamespaceException invalid(String message) {
    return new NamespaceException(Fault.INVALID, message, null);
  }
}
