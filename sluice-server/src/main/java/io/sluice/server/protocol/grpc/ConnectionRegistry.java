package io.sluice.server.protocol.grpc;

import io.sluice.server.clock.ServerClock;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registered connections, by id. An id is assigned when a transport becomes ready (as Nacos
 * does: {@code millis_remoteIp_remotePort}) and a connection is registered under it when the client
 * opens its stream; from then on every unary call on that transport belongs to it.
 *
 * <p>The number of connections is bounded; a setup beyond the bound is refused and the client tries
 * again or elsewhere.
 */
public final class ConnectionRegistry {
  private static final Logger log = LoggerFactory.getLogger(ConnectionRegistry.class);

  private final ServerClock clock;
  private final MessageCodec codec;
  private final int maxConnections;
  private final int maxPendingPushesPerConnection;
  private final Map<String, Connection> connections = new ConcurrentHashMap<>();
  private final List<ConnectionListener> listeners = new CopyOnWriteArrayList<>();
  private final AtomicLong sequence = new AtomicLong();
  private final PushCounts pushCounts = new PushCounts();

  public ConnectionRegistry(
      ServerClock clock, MessageCodec codec, int maxConnections, int maxPendingPushes) {
    this.clock = clock;
    this.codec = codec;
    this.maxConnections = maxConnections;
    this.maxPendingPushesPerConnection = maxPendingPushes;
  }

  public void addListener(ConnectionListener listener) {
    listeners.add(listener);
  }

  /**
   * A new transport's connection id. The sequence suffix keeps ids unique when one client port is
   * reused within a millisecond; clients treat the id as opaque.
   */
  String newConnectionId(String remoteIp, int remotePort) {
    return clock.currentTimeMillis()
        + "_"
        + remoteIp
        + "_"
        + remotePort
        + "_"
        + sequence.incrementAndGet();
  }

  /** The most connections registered at once. */
  int maxConnections() {
    return maxConnections;
  }

  /**
   * Registers the connection of a transport; null when the registry is full.
   *
   * @throws ConnectionAlreadyRegisteredException when the transport's connection is still
   *     registered (a second setup stream on it), full or not
   */
  Connection register(
      String id, String remoteIp, int remotePort, ClientInfo client, PushStream stream) {
    if (connections.containsKey(id)) {
      throw new ConnectionAlreadyRegisteredException(id);
    }
    if (connections.size() >= maxConnections) {
      return null; // the caller refuses it and notes that in the client-fault log
    }
    Connection connection =
        new Connection(
            id,
            remoteIp,
            remotePort,
            client,
            stream,
            codec,
            clock,
            maxPendingPushesPerConnection,
            pushCounts);
    if (connections.putIfAbsent(id, connection) != null) {
      throw new ConnectionAlreadyRegisteredException(id); // two setup streams raced
    }
    connection.onClose(() -> unregister(connection));
    for (ConnectionListener listener : listeners) {
      try {
        listener.onConnected(connection);
      } catch (RuntimeException e) {
        log.error("connection listener failed on connect of {}", id, e);
      }
    }
    return connection;
  }

  public Connection get(String id) {
    return id == null ? null : connections.get(id);
  }

  public Collection<Connection> all() {
    return connections.values();
  }

  public int size() {
    return connections.size();
  }

  /** Pushes over every connection, for the server's metrics. */
  public PushCounts pushCounts() {
    return pushCounts;
  }

  /** Closes the connection with this id, if registered. */
  public void close(String id, String reason) {
    Connection connection = connections.get(id);
    if (connection != null) {
      connection.close(reason);
    }
  }

  private void unregister(Connection connection) {
    if (!connections.remove(connection.id(), connection)) {
      return;
    }
    for (ConnectionListener listener : listeners) {
      try {
        listener.onDisconnected(connection);
      } catch (RuntimeException e) {
        log.error("connection listener failed on disconnect of {}", connection.id(), e);
      }
    }
  }
}
