package io.sluice.server.naming;

import java.util.Map;

/**
 * One instance of a service, immutable. Health is part of it: a health change makes a new instance,
 * so a published list never changes under a reader.
 *
 * @param heartBeatIntervalMillis how often an HTTP-registered ephemeral instance must beat
 * @param heartBeatTimeoutMillis silence after which it is marked unhealthy
 * @param ipDeleteTimeoutMillis silence after which it is removed
 */
public record Instance(
    String instanceId,
    String ip,
    int port,
    double weight,
    boolean healthy,
    boolean enabled,
    boolean ephemeral,
    String clusterName,
    Map<String, String> metadata,
    long heartBeatIntervalMillis,
    long heartBeatTimeoutMillis,
    long ipDeleteTimeoutMillis) {

  public static final String DEFAULT_CLUSTER = "DEFAULT";
  public static final long DEFAULT_HEART_BEAT_INTERVAL = 5_000;
  public static final long DEFAULT_HEART_BEAT_TIMEOUT = 15_000;
  public static final long DEFAULT_IP_DELETE_TIMEOUT = 30_000;

  /** Metadata keys with which a client overrides the heartbeat settings, as in Nacos. */
  public static final String HEART_BEAT_INTERVAL_KEY = "preserved.heart.beat.interval";

  public static final String HEART_BEAT_TIMEOUT_KEY = "preserved.heart.beat.timeout";
  public static final String IP_DELETE_TIMEOUT_KEY = "preserved.ip.delete.timeout";

  public Instance {
    metadata = Map.copyOf(metadata);
  }

  /** Same ip, port and cluster: the identity of an instance within a service. */
  public boolean sameEndpoint(Instance other) {
    return port == other.port && ip.equals(other.ip) && clusterName.equals(other.clusterName);
  }

  public String endpointKey() {
    return ip + ":" + port + "#" + clusterName;
  }

  public Instance withHealthy(boolean healthy) {
    return healthy == this.healthy
        ? this
        : new Instance(
            instanceId,
            ip,
            port,
            weight,
            healthy,
            enabled,
            ephemeral,
            clusterName,
            metadata,
            heartBeatIntervalMillis,
            heartBeatTimeoutMillis,
            ipDeleteTimeoutMillis);
  }

  /** The id clients see: the one given at registration, else the generated one. */
  public String instanceIdIn(ServiceKey service) {
    return instanceId != null ? instanceId : defaultInstanceId(ip, port, clusterName, service);
  }

  /** The id Nacos generates when the client gives none: {@code ip#port#cluster#group@@service}. */
  public static String defaultInstanceId(String ip, int port, String cluster, ServiceKey service) {
    return ip + "#" + port + "#" + cluster + "#" + service.groupedName();
  }
}
