package io.sluice.server;

import io.sluice.server.config.ConfigService;
import io.sluice.server.config.http.ConfigHttpApi;
import io.sluice.server.feature.ReplicatedWrites;
import io.sluice.server.metrics.JvmMetrics;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.naming.NamingService;
import io.sluice.server.naming.NamingStats;
import io.sluice.server.protocol.grpc.ConnectionRegistry;
import io.sluice.server.protocol.grpc.GrpcServer;
import io.sluice.server.protocol.grpc.PushCounts;
import io.sluice.server.protocol.http.HttpApiServer;
import io.sluice.server.traffic.TrafficStore;
import java.util.function.BooleanSupplier;

/**
 * What the parts of a running server report at each scrape besides their requests: connections,
 * pushes, held long-polls, configs, services, instances and subscribers, the store's commit latency
 * and readiness, and the JVM. Everything here is read when Prometheus asks, on a worker; nothing is
 * recorded on a request's path.
 */
final class ServerGauges {
  private ServerGauges() {}

  static void register(
      ServerMetrics metrics,
      ConfigService config,
      NamingService naming,
      ConnectionRegistry grpcConnections,
      GrpcServer grpc,
      HttpApiServer http,
      ConfigHttpApi configHttp,
      ReplicatedWrites writes,
      TrafficStore traffic,
      BooleanSupplier serving) {
    metrics.register(
        out -> {
          out.gauge(
              "sluice_ready",
              "1 when the server serves clients (store ready; with auth, its key known), else 0",
              serving.getAsBoolean() ? 1 : 0);
          out.gauge(
              "sluice_grpc_connections",
              "Client connections registered on the gRPC port",
              grpcConnections.size());
          out.gauge(
              "sluice_grpc_handshaking_sockets",
              "Sockets on the gRPC port not yet through their HTTP/2 handshake",
              grpc.handshakingSockets());
          out.gauge(
              "sluice_grpc_transports",
              "Handshaked HTTP/2 transports on the gRPC port",
              grpc.transports());
          out.gauge("sluice_http_connections", "Open HTTP connections", http.openConnections());
          PushCounts pushes = grpcConnections.pushCounts();
          out.counter(
              "sluice_grpc_pushes_total",
              "Config and service changes pushed to gRPC clients",
              pushes.sent());
          out.counter(
              "sluice_grpc_push_acks_total",
              "Pushes the clients acknowledged",
              pushes.acknowledged());
          out.counter(
              "sluice_grpc_push_failures_total",
              "Pushes sent that failed: answered with an error, unanswered in time, or their"
                  + " connection closed first",
              pushes.failed());
          out.gauge(
              "sluice_config_held_polls",
              "HTTP long-polls held now, waiting for a config change or their deadline",
              configHttp.heldPolls());
          long configs = 0;
          for (int n : config.countByNamespace().values()) {
            configs += n;
          }
          out.gauge("sluice_configs", "Configs stored, in every namespace", configs);
          NamingStats stats = naming.stats();
          out.gauge("sluice_naming_services", "Services listed", stats.services());
          out.gauge("sluice_naming_instances", "Instances of every kind", stats.instances());
          out.gauge(
              "sluice_naming_persistent_instances",
              "Persistent instances",
              stats.persistentInstances());
          out.gauge("sluice_naming_subscribers", "Service subscriptions", stats.subscribers());
          out.family(
                  "sluice_replication_commit_duration_seconds",
                  "histogram",
                  "Replicated writes, from submission until committed in the Raft log and applied"
                      + " on this node (or failed)")
              .histogram("sluice_replication_commit_duration_seconds", writes.commitDurations());
          out.counter(
              "sluice_traffic_reports_total",
              "Traffic reports received from agents",
              traffic.reports());
          out.counter(
              "sluice_traffic_refused_total",
              "Applications, instances, resource series or names from agents' reports dropped at"
                  + " the traffic store's bounds",
              traffic.refused());
          out.gauge(
              "sluice_traffic_series",
              "Resource series (per instance) the traffic store holds",
              traffic.seriesCount());
        });
    metrics.register(new JvmMetrics());
  }
}
