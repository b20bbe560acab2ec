package io.sluice.server.naming;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.feature.ReplicatedWrites;
import io.sluice.server.naming.health.HealthProbe;
import io.sluice.server.replication.ReplicatedState;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The registry, put together: the in-memory registry, its replicated part (a replicated state), the
 * pushes to subscribers, the heartbeats of HTTP clients, the health checks of persistent instances,
 * and the one door to them all, {@link #service()}.
 */
public final class NamingFeature implements AutoCloseable {
  /** Health checks outstanding at once; size a probe's connection pool to it. */
  public static final int HEALTH_CHECKS_IN_FLIGHT = HealthChecker.DEFAULT_MAX_IN_FLIGHT;

  /** How often cached {@code serviceInfo} JSON nobody asked for is dropped. */
  static final long FORGET_RENDERINGS_SECONDS = 30;

  private final ServiceRegistry registry;
  private final NamingStore store;
  private final BeatMonitor beats;
  private final HealthChecker healthChecker;
  private final NamingService service;
  private final EphemeralStore ephemeralStore;
  private final EphemeralSync ephemeralSync;

  /** What this node knows of the cluster, for dropping what dead nodes owned. */
  public interface Membership {
    boolean isLeader();

    /** Every member's node id. */
    Set<String> members();

    /** On the leader: how long each follower has been silent, by node id (absent: unknown). */
    Map<String, Long> silentMillis();
  }

  /**
   * How a cluster node shares its ephemeral instances: its node id, this run's incarnation id (new
   * at every start), how long the leader waits for a silent node before dropping what it owned, and
   * where the membership comes from.
   */
  public record Cluster(
      String selfNode, String incarnation, long ownerTimeoutMillis, Membership membership) {}

  /**
   * @param pushThread the one thread that pushes changes to subscribers
   * @param pushDelayMillis the least time between two rounds of pushes to subscribers; changes
   *     meanwhile are gathered into the next round
   * @param maxHeartbeatClients HTTP clients that may keep instances alive with heartbeats
   * @param probe checks one persistent instance
   */
  public NamingFeature(
      ServerClock clock,
      ReplicatedWrites writes,
      ScheduledExecutorService pushThread,
      long pushDelayMillis,
      int maxHeartbeatClients,
      HealthProbe probe) {
    this(
        clock,
        writes,
        pushThread,
        pushDelayMillis,
        maxHeartbeatClients,
        probe,
        Long.MAX_VALUE,
        Optional.empty(),
        null);
  }

  /**
   * As above, with a bound on the metadata instances hold together: all ephemeral ones, and
   * separately all persistent ones.
   *
   * @param maxInstanceMetadataBytes characters of metadata (keys and values) in total, for each
   *     kind; a registration beyond is refused {@code OVERLOADED}
   * @param cluster in a cluster, how this node shares its ephemeral instances; empty standalone
   * @param scheduler where a cluster node reconciles its shared instances (unused standalone)
   */
  public NamingFeature(
      ServerClock clock,
      ReplicatedWrites writes,
      ScheduledExecutorService pushThread,
      long pushDelayMillis,
      int maxHeartbeatClients,
      HealthProbe probe,
      long maxInstanceMetadataBytes,
      Optional<Cluster> cluster,
      ScheduledExecutorService scheduler) {
    this.registry = new ServiceRegistry(clock, maxInstanceMetadataBytes);
    NamingPushes pushes = new NamingPushes(registry, pushThread, clock, pushDelayMillis);
    registry.onChange(pushes);
    this.store = new NamingStore(registry, maxInstanceMetadataBytes);
    this.beats =
        new BeatMonitor(
            registry, clock, maxHeartbeatClients, BeatMonitor.DEFAULT_MAX_SERVICES_PER_CLIENT);
    this.healthChecker =
        new HealthChecker(
            registry, probe, HealthChecker.DEFAULT_MAX_IN_FLIGHT, HealthChecker.DEFAULT_FLIP_AFTER);
    this.service = new NamingService(registry, pushes, beats, writes);
    if (cluster.isPresent()) {
      Cluster c = cluster.get();
      this.ephemeralStore = new EphemeralStore(registry, clock, c.selfNode(), c.incarnation());
      this.ephemeralSync =
          new EphemeralSync(
              registry,
              ephemeralStore,
              writes,
              scheduler,
              c.membership(),
              c.selfNode(),
              c.incarnation(),
              c.ownerTimeoutMillis());
    } else {
      this.ephemeralStore = null;
      this.ephemeralSync = null;
    }
  }

  /**
   * Starts the background work on {@code scheduler}: the sweep for silent heartbeating instances,
   * the health checks every {@code healthCheckIntervalMillis}, and dropping idle renderings.
   */
  public void start(ScheduledExecutorService scheduler, long healthCheckIntervalMillis) {
    beats.start(scheduler, BeatMonitor.DEFAULT_SWEEP_MILLIS);
    healthChecker.start(scheduler, healthCheckIntervalMillis);
    if (ephemeralSync != null) {
      ephemeralSync.start();
    }
    scheduler.scheduleWithFixedDelay(
        registry::forgetIdleRenderings,
        FORGET_RENDERINGS_SECONDS,
        FORGET_RENDERINGS_SECONDS,
        TimeUnit.SECONDS);
  }

  /** The door. */
  public NamingService service() {
    return service;
  }

  /**
   * What the replicator applies naming commands to: the persistent part, and in a cluster the
   * ephemeral instances every node shares.
   */
  public List<ReplicatedState> states() {
    return ephemeralStore == null ? List.of(store) : List.of(store, ephemeralStore);
  }

  @Override
  public void close() {
    if (ephemeralSync != null) {
      ephemeralSync.close();
    }
    healthChecker.close();
  }
}
