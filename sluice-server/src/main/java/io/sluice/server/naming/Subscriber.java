package io.sluice.server.naming;

/**
 * A client subscribed to a service. The registry tells it of changes; how it delivers them (push on
 * a gRPC stream, with acknowledgement and retry) is its own business, and it must not block.
 */
public interface Subscriber {
  /**
   * Who subscribed, for listings (the console, Nacos's subscriber list); never for identity.
   *
   * @param ip the address the client reports, else its connection's
   * @param port its connection's remote port
   * @param agent the client's own name and version ({@code Nacos-Java-Client:v2.5.1}), or ""
   * @param app the application name the client reports, or ""
   * @param clusters the cluster filter it subscribed with ("" for all)
   */
  record Client(String ip, int port, String agent, String app, String clusters) {}

  /** Who this subscriber is. */
  Client client();

  /** The cluster filter the client subscribed with, echoed back in what it receives. */
  String clusters();

  /** The service changed; {@code view} is its newest snapshot. Called on the push thread. */
  void serviceChanged(ServiceView view);
}
