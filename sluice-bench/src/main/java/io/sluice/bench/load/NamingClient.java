package io.sluice.bench.load;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The naming operations the scenarios drive, in one client mode. {@link #register} and {@link
 * #query} are the multiplexed load of the throughput scenarios; {@link #provider} and {@link
 * #subscribe} open a connection of their own, because an ephemeral instance belongs to the
 * connection that registered it and a push goes to the connection that subscribed.
 */
interface NamingClient extends AutoCloseable {
  String GROUP = "SLUICE_BENCH";

  /** Registers an ephemeral instance from the connection chosen by {@code seq}. */
  CompletableFuture<?> register(
      long seq, String service, String ip, int port, Map<String, String> metadata);

  /** Reads a service's instances (no subscription). */
  CompletableFuture<?> query(String service);

  /** A provider on its own connection. */
  Provider provider() throws Exception;

  /**
   * Subscribes to {@code services} from one connection of its own (one application subscribing to
   * them); closing it disconnects.
   */
  AutoCloseable subscribe(List<String> services, ServiceEvents events) throws Exception;

  interface Provider extends AutoCloseable {
    CompletableFuture<?> register(
        String service, String ip, int port, Map<String, String> metadata);

    CompletableFuture<?> deregister(String service, String ip, int port);

    @Override
    void close();
  }

  /** What a subscriber sees. Called from client threads; must be quick. */
  interface ServiceEvents {
    /**
     * The server pushed {@code service}'s instances, of which {@code ports} are the ports; {@code
     * bytes} is the size of the push's JSON body (0 when the client mode cannot see it).
     */
    void pushed(String service, int[] ports, int bytes, long nanos);
  }

  @Override
  void close();
}
