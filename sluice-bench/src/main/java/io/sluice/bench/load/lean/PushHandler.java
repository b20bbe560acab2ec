package io.sluice.bench.load.lean;

import io.sluice.server.protocol.grpc.Payload;

/**
 * Reacts to a request the server sent on a connection's stream ({@code ConfigChangeNotifyRequest},
 * {@code NotifySubscriberRequest}, ...). The connection has already answered it. Runs on an event
 * loop: must not block.
 */
@FunctionalInterface
public interface PushHandler {
  PushHandler IGNORE = (connection, push, receivedNanos) -> {};

  void onPush(LeanConnection connection, Payload push, long receivedNanos);
}
