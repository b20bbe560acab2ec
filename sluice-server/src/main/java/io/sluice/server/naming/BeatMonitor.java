package io.sluice.server.naming;

import io.sluice.server.clock.ServerClock;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps alive the ephemeral instances that clients register over HTTP, for as long as they beat:
 * Nacos 1.x clients, and anything else that speaks the v1/v2 HTTP API. Such an instance has no
 * connection to die with, so silence stands in for the closed connection: after the instance's
 * {@code heartBeatTimeout} (15 s unless its preserved metadata says otherwise) it is marked
 * unhealthy, after its {@code ipDeleteTimeout} (30 s) it is removed; both reach subscribers as any
 * change does. A beat marks it healthy again.
 *
 * <p>Instances are owned, as Nacos's {@code IpPortBasedClient} owns them, by a client named after
 * the instance's address ({@link #ownerOf}): one instance per client and service, replaced by a new
 * registration. There are at most {@code maxClients} clients and each registers at most {@code
 * maxServicesPerClient} services; beyond, registration fails with {@link NamingException} and
 * nothing changes.
 *
 * <p>Concurrency: everything that changes one client's instances (register, beat, deregister,
 * sweep) runs under that client's monitor, so a beat never interleaves with the sweep that expires
 * the same instance. A client that lost its last instance is retired under its monitor and removed
 * from the map; whoever then finds it retired starts over with a fresh one.
 */
final class BeatMonitor {
  private static final Logger log = LoggerFactory.getLogger(BeatMonitor.class);

  public static final int DEFAULT_MAX_SERVICES_PER_CLIENT = 10_000;

  /** How often silent instances are looked for; Nacos checks every 5 s, we are a bit more exact. */
  public static final long DEFAULT_SWEEP_MILLIS = 1_000;

  private static final String OWNER_PREFIX = "http:";

  private final ServiceRegistry registry;
  private final ServerClock clock;
  private final int maxClients;
  private final int maxServicesPerClient;
  private final Map<String, BeatClient> clients = new ConcurrentHashMap<>();

  BeatMonitor(
      ServiceRegistry registry, ServerClock clock, int maxClients, int maxServicesPerClient) {
    if (maxClients < 1 || maxServicesPerClient < 1) {
      throw new IllegalArgumentException("client limits must be positive");
    }
    this.registry = registry;
    this.clock = clock;
    this.maxClients = maxClients;
    this.maxServicesPerClient = maxServicesPerClient;
  }

  /** The owner id of the instances an HTTP client registers from {@code ip:port}. */
  static String ownerOf(String ip, int port) {
    return OWNER_PREFIX + ip + ":" + port;
  }

  /** Sweeps for silent instances every {@code periodMillis} on the given scheduler. */
  ScheduledFuture<?> start(ScheduledExecutorService scheduler, long periodMillis) {
    return scheduler.scheduleWithFixedDelay(
        () -> {
          try {
            sweep();
          } catch (RuntimeException e) {
            log.warn("beat sweep failed", e);
          }
        },
        periodMillis,
        periodMillis,
        TimeUnit.MILLISECONDS);
  }

  /**
   * Registers (or replaces) the instance its client publishes for the service; counts as a beat.
   *
   * @throws NamingException beyond the client or per-client service limit ({@link
   *     io.sluice.server.feature.Fault#OVERLOADED}), or when the service holds persistent instances
   *     ({@link io.sluice.server.feature.Fault#INVALID})
   */
  void register(ServiceKey service, Instance instance) {
    String owner = ownerOf(instance.ip(), instance.port());
    while (true) {
      BeatClient client = clientFor(owner);
      synchronized (client) {
        if (client.retired) {
          continue;
        }
        if (!client.lastBeatNanos.containsKey(service)
            && client.lastBeatNanos.size() >= maxServicesPerClient) {
          throw NamingException.overloaded(
              "client "
                  + owner
                  + " already registers "
                  + maxServicesPerClient
                  + " services, the most one HTTP client may");
        }
        try {
          registry.register(owner, service, instance);
          client.lastBeatNanos.put(service, clock.nanoTime());
        } finally {
          retireIfEmpty(owner, client);
        }
        return;
      }
    }
  }

  /**
   * A beat from the instance at {@code ip:port} of a service. When its client no longer publishes
   * it (it expired, or was never registered), a beat that carries the instance re-registers it, as
   * Nacos does; a light beat without it gets {@link Beat#found()} false, which tells a 1.x client
   * to register again.
   *
   * @param carried the instance described by the beat, or null for a light beat
   */
  Beat beat(ServiceKey service, String ip, int port, Instance carried) {
    String owner = ownerOf(ip, port);
    BeatClient client = clients.get(owner);
    if (client != null) {
      synchronized (client) {
        if (!client.retired && client.lastBeatNanos.containsKey(service)) {
          List<Instance> published = registry.publishedBy(owner, service);
          if (!published.isEmpty()) {
            client.lastBeatNanos.put(service, clock.nanoTime());
            Instance instance = published.get(0);
            if (!instance.healthy()) {
              registry.setEphemeralHealth(owner, service, ip, port, true);
            }
            return new Beat(true, instance.heartBeatIntervalMillis());
          }
          // Someone else removed it from the registry: forget it too.
          client.lastBeatNanos.remove(service);
          retireIfEmpty(owner, client);
        }
      }
    }
    if (carried == null) {
      return new Beat(false, Instance.DEFAULT_HEART_BEAT_INTERVAL);
    }
    register(service, carried);
    return new Beat(true, carried.heartBeatIntervalMillis());
  }

  /** Removes the instance that the client at {@code ip:port} published for the service. */
  void deregister(ServiceKey service, String ip, int port) {
    String owner = ownerOf(ip, port);
    BeatClient client = clients.get(owner);
    if (client == null) {
      return;
    }
    synchronized (client) {
      if (client.retired) {
        return;
      }
      registry.deregister(owner, service, ip, port);
      if (registry.publishedBy(owner, service).isEmpty()) {
        client.lastBeatNanos.remove(service);
      }
      retireIfEmpty(owner, client);
    }
  }

  /**
   * Marks instances silent for longer than their heartbeat timeout unhealthy and removes those
   * silent for longer than their delete timeout. Called by the scheduler; tests call it after
   * moving the clock.
   */
  void sweep() {
    long now = clock.nanoTime();
    for (Map.Entry<String, BeatClient> entry : clients.entrySet()) {
      String owner = entry.getKey();
      BeatClient client = entry.getValue();
      synchronized (client) {
        if (client.retired) {
          continue;
        }
        Iterator<Map.Entry<ServiceKey, Long>> beats = client.lastBeatNanos.entrySet().iterator();
        while (beats.hasNext()) {
          Map.Entry<ServiceKey, Long> beat = beats.next();
          ServiceKey service = beat.getKey();
          List<Instance> published = registry.publishedBy(owner, service);
          if (published.isEmpty()) {
            beats.remove();
            continue;
          }
          long silentMillis = TimeUnit.NANOSECONDS.toMillis(now - beat.getValue());
          for (Instance instance : published) {
            if (silentMillis > instance.ipDeleteTimeoutMillis()) {
              log.info(
                  "{} of {} sent no beat for {} ms: removed",
                  instance.endpointKey(),
                  service,
                  silentMillis);
              registry.deregister(owner, service, instance.ip(), instance.port());
            } else if (silentMillis > instance.heartBeatTimeoutMillis() && instance.healthy()) {
              log.info(
                  "{} of {} sent no beat for {} ms: unhealthy",
                  instance.endpointKey(),
                  service,
                  silentMillis);
              registry.setEphemeralHealth(owner, service, instance.ip(), instance.port(), false);
            }
          }
          if (registry.publishedBy(owner, service).isEmpty()) {
            beats.remove();
          }
        }
        retireIfEmpty(owner, client);
      }
    }
  }

  /** HTTP clients that currently publish instances. */
  int clientCount() {
    return clients.size();
  }

  private BeatClient clientFor(String owner) {
    BeatClient existing = clients.get(owner);
    if (existing != null) {
      return existing;
    }
    return clients.compute(
        owner,
        (o, current) -> {
          if (current != null) {
            return current;
          }
          if (clients.size() >= maxClients) {
            throw NamingException.overloaded(
                "there are already " + maxClients + " HTTP naming clients, the most allowed");
          }
          return new BeatClient();
        });
  }

  /** Called under the client's monitor. */
  private void retireIfEmpty(String owner, BeatClient client) {
    if (client.lastBeatNanos.isEmpty() && !client.retired) {
      client.retired = true;
      clients.remove(owner, client);
    }
  }

  /** One HTTP client: when each of its services last heard from it. Guarded by its monitor. */
  private static final class BeatClient {
    final Map<ServiceKey, Long> lastBeatNanos = new HashMap<>(4);
    boolean retired;
  }
}
