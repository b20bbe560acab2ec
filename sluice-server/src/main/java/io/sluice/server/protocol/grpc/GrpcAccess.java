package io.sluice.server.protocol.grpc;

/**
 * Whether a decoded request may reach its handler (auth's check, installed by the server; {@link
 * #OPEN} lets everything through). Runs on the event loop for every request: CPU only.
 */
@FunctionalInterface
public interface GrpcAccess {
  GrpcAccess OPEN = request -> {};

  /**
   * Returns when the request may proceed; otherwise throws a feature failure (unauthenticated or
   * forbidden), answered with error 403 so the official client logs in again.
   */
  void check(NacosRequest request);
}
