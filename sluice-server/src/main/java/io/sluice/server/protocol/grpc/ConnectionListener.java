package io.sluice.server.protocol.grpc;

/** Told when clients come and go; e.g. naming drops a connection's instances when it closes. */
public interface ConnectionListener {
  default void onConnected(Connection connection) {}

  /** Called once per connection, after it is unregistered; must not block. */
  void onDisconnected(Connection connection);
}
