package io.sluice.server.protocol.grpc;

import io.grpc.Status;

/**
 * The server's side of a client's {@code /BiRequestStream/requestBiStream} call, as a {@link
 * Connection} uses it: send a message, end the call with a status. Each {@link GrpcTransport}
 * implements it, so registration, pushes, their acknowledgements and the pending-push bound are the
 * same whichever carries them.
 *
 * <p>Callers serialise calls (a {@link Connection} holds its send lock); implementations may be
 * called from any thread. After {@link #close}, {@link #send} fails or does nothing.
 */
interface PushStream {
  /**
   * Sends one message on the stream.
   *
   * @throws RuntimeException when the stream is already closed, as grpc-java's call does
   */
  void send(Payload message);

  /**
   * Ends the call with {@code code} and {@code description}; the client sees them as the status.
   */
  void close(Status.Code code, String description);
}
