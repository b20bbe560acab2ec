package io.sluice.server.naming;

import io.sluice.server.naming.health.HealthCheck;
import io.sluice.server.naming.health.HealthProbe;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's health checks of persistent instances (ephemeral ones prove their health by beating
 * or by their connection). Every round probes each persistent instance once, as its cluster's
 * {@link HealthCheck} says; {@value #DEFAULT_FLIP_AFTER} results in a row against the instance's
 * current health flip it (Nacos's {@code checkTimes}), so one lost probe does not make it flap.
 * Health is soft state ({@link ServiceRegistry#setPersistentHealth}): never replicated, pushed to
 * subscribers like any change.
 *
 * <p>Bounded: at most {@code maxInFlight} probes are outstanding, the rest of the round waits its
 * turn; a round that is still running when the next is due makes that one skip. The remembered
 * streaks are pruned to the current instances at each round.
 *
 * <p>Concurrency: rounds start on the scheduler thread; probe results arrive on whatever thread
 * completes the probe (a Vert.x event loop) and only update maps and the registry, both
 * thread-safe.
 */
final class HealthChecker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HealthChecker.class);

  public static final int DEFAULT_MAX_IN_FLIGHT = 64;
  public static final int DEFAULT_FLIP_AFTER = 3;

  private final ServiceRegistry registry;
  private final HealthProbe probe;
  private final int maxInFlight;
  private final int flipAfter;
  private final Map<Target, Streak> streaks = new ConcurrentHashMap<>();
  private final AtomicBoolean roundRunning = new AtomicBoolean();
  private volatile boolean closed;

  HealthChecker(ServiceRegistry registry, HealthProbe probe, int maxInFlight, int flipAfter) {
    if (maxInFlight < 1 || flipAfter < 1) {
      throw new IllegalArgumentException("maxInFlight and flipAfter must be positive");
    }
    this.registry = registry;
    this.probe = probe;
    this.maxInFlight = maxInFlight;
    this.flipAfter = flipAfter;
  }

  /**
   * Runs a round every {@code intervalMillis} plus up to a fifth more at random, so that servers
   * and rounds do not fall into step (Nacos adds jitter too).
   */
  void start(ScheduledExecutorService scheduler, long intervalMillis) {
    scheduleNext(scheduler, intervalMillis);
  }

  private void scheduleNext(ScheduledExecutorService scheduler, long intervalMillis) {
    if (closed || scheduler.isShutdown()) {
      return;
    }
    long jitter = ThreadLocalRandom.current().nextLong(intervalMillis / 5 + 1);
    scheduler.schedule(
        () -> {
          try {
            runRound();
          } catch (RuntimeException e) {
            log.warn("health check round failed to start", e);
          } finally {
            scheduleNext(scheduler, intervalMillis);
          }
        },
        intervalMillis + jitter,
        TimeUnit.MILLISECONDS);
  }

  /**
   * Probes every persistent instance once; completes when all answered. Skipped (completes at once)
   * while the previous round still runs.
   */
  CompletableFuture<Void> runRound() {
    if (closed || !roundRunning.compareAndSet(false, true)) {
      return CompletableFuture.completedFuture(null);
    }
    List<Target> targets = targets();
    streaks.keySet().retainAll(new HashSet<>(targets));
    Round round = new Round(targets);
    round.start();
    return round.done.whenComplete((v, e) -> roundRunning.set(false));
  }

  private List<Target> targets() {
    List<Target> targets = new ArrayList<>();
    Map<ServiceKey, ServiceMeta> metas = new HashMap<>();
    for (Map.Entry<ServiceKey, Instance> entry : registry.persistentInstances()) {
      ServiceKey service = entry.getKey();
      Instance instance = entry.getValue();
      ServiceMeta meta =
          metas.computeIfAbsent(
              service,
              k -> {
                ServiceView view = registry.view(k);
                return view == null ? ServiceMeta.DEFAULT : view.meta();
              });
      HealthCheck check = HealthCheck.forCluster(meta.metadata(), instance.clusterName());
      if (check.type() != HealthCheck.Type.NONE) {
        targets.add(new Target(service, instance.endpointKey(), instance, check));
      }
    }
    return targets;
  }

  private void record(Target target, boolean passed) {
    Streak streak = streaks.computeIfAbsent(target, t -> new Streak());
    int inARow;
    synchronized (streak) {
      if (streak.passed == passed) {
        streak.count++;
      } else {
        streak.passed = passed;
        streak.count = 1;
      }
      inARow = streak.count;
    }
    Instance current = registry.persistent(target.service, target.endpointKey);
    if (current != null && current.healthy() != passed && inARow >= flipAfter) {
      log.info(
          "{} of {} {} {} health checks in a row: now {}",
          target.endpointKey,
          target.service,
          passed ? "passed" : "failed",
          inARow,
          passed ? "healthy" : "unhealthy");
      registry.setPersistentHealth(target.service, target.endpointKey, passed);
    }
  }

  @Override
  public void close() {
    closed = true;
  }

  /** One round: a cursor over the targets, at most {@code maxInFlight} probes outstanding. */
  private final class Round {
    final List<Target> targets;
    final AtomicInteger next = new AtomicInteger();
    final AtomicInteger remaining;
    final CompletableFuture<Void> done = new CompletableFuture<>();

    Round(List<Target> targets) {
      this.targets = targets;
      this.remaining = new AtomicInteger(targets.size());
    }

    void start() {
      if (targets.isEmpty()) {
        done.complete(null);
        return;
      }
      for (int i = 0; i < Math.min(maxInFlight, targets.size()); i++) {
        launchNext();
      }
    }

    void launchNext() {
      int index = next.getAndIncrement();
      if (index >= targets.size()) {
        return;
      }
      Target target = targets.get(index);
      CompletionStage<Boolean> result;
      try {
        result = probe.probe(target.instance, target.check);
      } catch (RuntimeException e) {
        result = CompletableFuture.completedFuture(false);
      }
      result.whenComplete(
          (passed, failure) -> {
            try {
              if (!closed) {
                record(target, failure == null && Boolean.TRUE.equals(passed));
              }
            } catch (RuntimeException e) {
              log.warn("recording the health of {} failed", target.endpointKey, e);
            }
            if (remaining.decrementAndGet() == 0) {
              done.complete(null);
            } else {
              launchNext();
            }
          });
    }
  }

  /** A persistent instance to check; equal by service and endpoint only. */
  private record Target(
      ServiceKey service, String endpointKey, Instance instance, HealthCheck check) {
    @Override
    public boolean equals(Object other) {
      return other instanceof Target t
          && t.service.equals(service)
          && t.endpointKey.equals(endpointKey);
    }

    @Override
    public int hashCode() {
      return service.hashCode() * 31 + endpointKey.hashCode();
    }
  }

  /** The latest results of one instance in a row. Guarded by its monitor. */
  private static final class Streak {
    boolean passed = true;
    int count;
  }

  /** For tests: the set of instances currently remembered. */
  Set<String> remembered() {
    Set<String> endpoints = new HashSet<>();
    for (Target target : streaks.keySet()) {
      endpoints.add(target.endpointKey);
    }
    return endpoints;
  }
}
