package io.sluice.bench.load;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Everything a scenario needs to know about the run, fixed before it starts.
 *
 * @param servers every server the load goes to: one, or each node of a cluster; connections (lean
 *     driver) and client instances (official client) take them in turn
 * @param concurrency closed loop: operations in flight; official client: also its caller threads
 * @param connections lean driver: connections the load is multiplexed over; official client: {@code
 *     ConfigService}/{@code NamingService} instances
 * @param rate open loop: operations per second; 0 means 70 % of what the closed loop reached
 * @param pushShared naming-push: a few provider and subscriber applications that each cover every
 *     service, instead of one connection per provider and per subscriber
 */
record Settings(
    List<Endpoint> servers,
    Warmup warmup,
    Duration duration,
    int concurrency,
    int connections,
    double rate,
    int maxInFlight,
    int configs,
    int configBytes,
    int listeners,
    int listensPerClient,
    boolean sharedListens,
    double publishRate,
    int services,
    int pushServices,
    int providersPerService,
    int subscribersPerService,
    boolean pushShared,
    double churnRate,
    int metadataBytes) {

  Settings {
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("no server to drive");
    }
    servers = List.copyOf(servers);
  }

  /** {@code host:port} of every server's HTTP port, comma-separated, as nacos-client takes them. */
  String serverAddress() {
    return servers.stream().map(Endpoint::httpAddress).collect(Collectors.joining(","));
  }

  /** One server: the HTTP address a client is given and the gRPC port it connects to. */
  record Endpoint(String host, int httpPort, int grpcPort) {
    String httpAddress() {
      return host + ":" + httpPort;
    }
  }
}
