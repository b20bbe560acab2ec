package io.sluice.server.protocol.grpc;

import io.grpc.Status;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Connections registered for tests of other packages, which cannot reach {@link
 * ConnectionRegistry}'s register, each on a stream that keeps the types of the messages sent on it.
 */
public final class RegisteredConnections {
  private RegisteredConnections() {}

  /** The types of the messages sent on a connection's stream, in order. */
  public static final class SentTypes {
    private final List<String> types = new CopyOnWriteArrayList<>();

    public List<String> types() {
      return List.copyOf(types);
    }
  }

  /** Registers connection {@code id}, whose stream records in {@code sent} what is sent on it. */
  public static Connection open(ConnectionRegistry registry, String id, SentTypes sent) {
    PushStream stream =
        new PushStream() {
          @Override
          public void send(Payload message) {
            sent.types.add(message.type());
          }

          @Override
          public void close(Status.Code code, String description) {}
        };
    return registry.register(
        id,
        "127.0.0.1",
        40_000,
        new ClientInfo("127.0.0.1", "test", "config", "", "", Map.of()),
        stream);
  }
}
