package io.sluice.server.naming;

/**
 * A client subscribed to a service. The registry tells it of changes; how it delivers them (push on
 * a gRPC stream, with acknowledgement and retry) is its own business, and it must not block.
 */
public interface Subscriber {
  /** The cluster filter the client subscribed with, echoed back in what it receives. */
  String clusters();

  /** The service changed; {@code view} is its newest snapshot. Called on the push thread. */
  void serviceChanged(ServiceView view);
}
