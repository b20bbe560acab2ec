package io.sluice.server.feature;

/**
 * Why a feature did not carry out a request, in the terms every protocol answers in. Each protocol
 * maps each fault to one answer (HTTP status and v2 code, gRPC error code), so the same fault gets
 * the same answer from every feature and endpoint.
 *
 * <p>A fault is not an outcome: a compare-and-set that found another md5, a service that already
 * exists or a namespace that is not there are outcomes of a request that was carried out, typed by
 * each feature. A fault means the request could not be carried out at all.
 */
public enum Fault {
  /** The request breaks a rule: a malformed name, a value out of range. Nothing changed. */
  INVALID,

  /** Content or a command is above its size limit. Nothing changed. */
  TOO_LARGE,

  /** A bound is reached (pending writes, clients); the client should back off. Nothing changed. */
  OVERLOADED,

  /**
   * The store cannot take writes now: it is starting, has no leader, or is closing. Nothing
   * changed, unless the message says the outcome is unknown; the client may retry.
   */
  UNAVAILABLE,

  /**
   * The request carries no valid credentials (no token, a bad or expired one, a wrong password).
   */
  UNAUTHENTICATED,

  /** The caller is known but lacks the permission or role the request needs. Nothing changed. */
  FORBIDDEN,

  /** The server failed: a state threw while applying, or something unexpected went wrong. */
  INTERNAL
}
