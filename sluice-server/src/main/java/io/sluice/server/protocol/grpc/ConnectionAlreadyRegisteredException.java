package io.sluice.server.protocol.grpc;

/**
 * A setup stream on a transport whose connection is still registered: a transport carries one
 * connection, so a second {@code ConnectionSetupRequest} on it is refused, whatever the number of
 * connections.
 */
final class ConnectionAlreadyRegisteredException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  ConnectionAlreadyRegisteredException(String connectionId) {
    super("connection " + connectionId + " is already registered", null, false, false);
  }
}
