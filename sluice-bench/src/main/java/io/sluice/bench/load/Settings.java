package io.sluice.bench.load;

import java.time.Duration;

/**
 * Everything a scenario needs to know about the run, fixed before it starts.
 *
 * @param concurrency closed loop: operations in flight; official client: also its caller threads
 * @param connections lean driver: connections the load is multiplexed over; official client: {@code
 *     ConfigService}/{@code NamingService} instances
 * @param rate open loop: operations per second; 0 means 70 % of what the closed loop reached
 * @param pushShared naming-push: a few provider and subscriber applications that each cover every
 *     service, instead of one connection per provider and per subscriber
 */
record Settings(
    String host,
    int httpPort,
    int grpcPort,
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

  String serverAddress() {
    return host + ":" + httpPort;
  }
}
