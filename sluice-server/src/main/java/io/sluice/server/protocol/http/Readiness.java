package io.sluice.server.protocol.http;

/** Whether the server can serve its clients now, and if not, why (what readiness answers). */
@FunctionalInterface
public interface Readiness {
  /** Null when ready; otherwise the reason, for the operator reading the probe. */
  String whyNotReady();
}
