package io.sluice.server.naming;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.feature.ReplicatedWrites;
import io.sluice.server.naming.health.HealthProbe;
import io.sluice.server.replication.ReplicatedState;
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

  /**
   * @param pushThread the one thread that pushes changes to subscribers
   * @param pushDelayMillis how long changes are gathered before subscribers are pushed
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
    this(clock, writes, pushThread, pushDelayMillis, maxHeartbeatClients, probe, Long.MAX_VALUE);
  }

  /**
   * As above, with a bound on the metadata instances hold together: all ephemeral ones, and
   * separately all persistent ones.
   *
   * @param maxInstanceMetadataBytes characters of metadata (keys and values) in total, for each
   *     kind; a registration beyond is refused {@code OVERLOADED}
   */
  public NamingFeature(
      ServerClock clock,
      ReplicatedWrites writes,
      ScheduledExecutorService pushThread,
      long pushDelayMillis,
      int maxHeartbeatClients,
      HealthProbe probe,
      long maxInstanceMetadataBytes) {
    this.registry = new ServiceRegistry(clock, maxInstanceMetadataBytes);
    NamingPushes pushes = new NamingPushes(registry, pushThread, pushDelayMillis);
    registry.onChange(pushes);
    this.store = new NamingStore(registry, maxInstanceMetadataBytes);
    this.beats =
        new BeatMonitor(
            registry, clock, maxHeartbeatClients, BeatMonitor.DEFAULT_MAX_SERVICES_PER_CLIENT);
    this.healthChecker =
        new HealthChecker(
            registry, probe, HealthChecker.DEFAULT_MAX_IN_FLIGHT, HealthChecker.DEFAULT_FLIP_AFTER);
    this.service = new NamingService(registry, pushes, beats, writes);
  }

  /**
   * Starts the background work on {@code scheduler}: the sweep for silent heartbeating instances,
   * the health checks every {@code healthCheckIntervalMillis}, and dropping idle renderings.
   */
  public void start(ScheduledExecutorService scheduler, long healthCheckIntervalMillis) {
    beats.start(scheduler, BeatMonitor.DEFAULT_SWEEP_MILLIS);
    healthChecker.start(scheduler, healthCheckIntervalMillis);
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

  /** What the replicator applies naming commands to. */
  public ReplicatedState state() {
    return store;
  }

  @Override
  public void close() {
    healthChecker.close();
  }
}
