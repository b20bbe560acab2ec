package io.sluice.server.naming;

import io.sluice.server.clock.ServerClock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * All services, their instances and subscribers, in memory.
 *
 * <p>Ephemeral instances are soft state owned by whoever published them (a gRPC connection, or an
 * HTTP client that sends beats): one list per (owner, service), replaced as a whole, and gone with
 * the owner. Persistent instances and service metadata are applied here from the replicated log.
 *
 * <p>Concurrency: every mutation of a service happens inside {@code services.compute} for its key,
 * so a service is never removed while another thread adds to it, and the sorted index of listed
 * names ({@link ServiceIndex}) is updated there too. Readers take the service's current {@link
 * ServiceView} without locking. Each change is reported to the change listener after the mutation,
 * on the mutating thread.
 */
final class ServiceRegistry {
  private final MetadataBudget metadata;
  private final RefTimes refTimes;
  private final ServiceIndex index = new ServiceIndex();
  private final Map<ServiceKey, Service> services = new ConcurrentHashMap<>();
  private final Map<String, Set<ServiceKey>> servicesByOwner = new ConcurrentHashMap<>();
  private volatile Consumer<ServiceKey> changes = key -> {};
  private volatile BiConsumer<String, ServiceKey> localOwnerChanges = (owner, key) -> {};

  /** Owners that are another node's ({@code @node/incarnation/owner}, see EphemeralStore). */
  static boolean isRemoteOwner(String owner) {
    return owner.startsWith("@");
  }

  ServiceRegistry(ServerClock clock) {
    this(clock, Long.MAX_VALUE);
  }

  /**
   * @param maxMetadataBytes characters of metadata all ephemeral instances may hold together
   */
  ServiceRegistry(ServerClock clock, long maxMetadataBytes) {
    this.refTimes = new RefTimes(clock);
    this.metadata = new MetadataBudget(maxMetadataBytes);
  }

  /** Characters of metadata the ephemeral instances hold now. */
  long ephemeralMetadataHeld() {
    return metadata.held();
  }

  /** Who hears of changes (the push dispatcher); set once while wiring the server. */
  void onChange(Consumer<ServiceKey> changes) {
    this.changes = changes;
  }

  /**
   * Who hears that an owner on this node changed what it publishes in a service (in a cluster,
   * {@link EphemeralSync}); set once while wiring the server. Not told of remote owners.
   */
  void onLocalOwnerChange(BiConsumer<String, ServiceKey> listener) {
    this.localOwnerChanges = listener;
  }

  /** Every owner and the services it publishes in; a live view. */
  Map<String, Set<ServiceKey>> ownerships() {
    return servicesByOwner;
  }

  ServiceView view(ServiceKey key) {
    Service service = services.get(key);
    return service == null ? null : service.view();
  }

  /**
   * The view of a service, or an empty one if it does not exist, stamped with the current time as
   * Nacos stamps it: a client never sees a {@code lastRefTime} go back, not even for a service that
   * is not there.
   */
  ServiceView viewOrEmpty(ServiceKey key) {
    ServiceView view = view(key);
    return view != null
        ? view
        : new ServiceView(key, List.of(), ServiceMeta.DEFAULT, refTimes.current());
  }

  /**
   * The key the registry holds for this service, else {@code key}: what keeps a service's key
   * (replicated entries, indexes) should share the registry's copy instead of one per reading.
   */
  ServiceKey sharedKey(ServiceKey key) {
    Service service = services.get(key);
    return service == null ? key : service.key;
  }

  boolean exists(ServiceKey key) {
    Service service = services.get(key);
    return service != null && service.isListed();
  }

  ServiceMeta meta(ServiceKey key) {
    Service service = services.get(key);
    return service == null ? null : service.meta();
  }

  /**
   * Publishes one ephemeral instance for {@code owner}, replacing what it published for this
   * service before (a Nacos 2.x connection owns one instance per service).
   */
  void register(String owner, ServiceKey key, Instance instance) {
    publishAll(owner, key, List.of(instance));
  }

  /** Replaces everything {@code owner} publishes for the service (set semantics). */
  void publishAll(String owner, ServiceKey key, List<Instance> instances) {
    AtomicBoolean changed = new AtomicBoolean();
    // The key the services map holds, so each owner's index shares it instead of keeping the
    // copy every request decodes (100,000 instances would keep 100,000 copies).
    ServiceKey[] stored = {key};
    services.compute(
        key,
        (k, service) -> {
          Service s = service == null ? new Service(k, refTimes) : service;
          if (!instances.isEmpty() && s.hasPersistent()) {
            throw NamingException.invalid(
                "service "
                    + k.groupedName()
                    + " has persistent instances; it cannot take ephemeral ones");
          }
          boolean wasListed = service != null && s.isListed();
          changed.set(s.publish(owner, instances, metadata));
          stored[0] = s.key;
          return settled(s, wasListed);
        });
    if (instances.isEmpty()) {
      Set<ServiceKey> owned = servicesByOwner.get(owner);
      if (owned != null) {
        owned.remove(key);
      }
    } else {
      servicesByOwner.computeIfAbsent(owner, o -> ConcurrentHashMap.newKeySet()).add(stored[0]);
    }
    if (changed.get()) {
      changes.accept(key);
      if (!isRemoteOwner(owner)) {
        localOwnerChanges.accept(owner, key);
      }
    }
  }

  /** Removes the owner's instances at {@code ip:port} from the service. */
  void deregister(String owner, ServiceKey key, String ip, int port) {
    Service service = services.get(key);
    if (service == null) {
      return;
    }
    List<Instance> remaining = new ArrayList<>();
    for (Instance instance : service.ephemeralOf(owner)) {
      if (!(instance.ip().equals(ip) && instance.port() == port)) {
        remaining.add(instance);
      }
    }
    publishAll(owner, key, remaining);
  }

  /** Removes everything an owner published: its connection closed or its beats stopped. */
  void removeOwner(String owner) {
    Set<ServiceKey> owned = servicesByOwner.remove(owner);
    if (owned == null) {
      return;
    }
    for (ServiceKey key : owned) {
      publishAll(owner, key, List.of());
    }
  }

  /** The ephemeral instances an owner published for a service. */
  List<Instance> publishedBy(String owner, ServiceKey key) {
    Service service = services.get(key);
    return service == null ? List.of() : service.ephemeralOf(owner);
  }

  /** Marks an owner's ephemeral instance healthy or not (HTTP beat clients). */
  void setEphemeralHealth(String owner, ServiceKey key, String ip, int port, boolean healthy) {
    Service service = services.get(key);
    if (service == null) {
      return;
    }
    List<Instance> updated = new ArrayList<>();
    boolean touched = false;
    for (Instance instance : service.ephemeralOf(owner)) {
      if (instance.ip().equals(ip) && instance.port() == port && instance.healthy() != healthy) {
        updated.add(instance.withHealthy(healthy));
        touched = true;
      } else {
        updated.add(instance);
      }
    }
    if (touched) {
      publishAll(owner, key, updated);
    }
  }

  /**
   * Rewrites the ephemeral instance at {@code ip:port} in {@code cluster}, whoever published it
   * (the HTTP update API changes instances it does not own, as Nacos's metadata overlay does). The
   * owner keeps it; a later registration by the owner replaces the change. Returns whether one was
   * found.
   */
  boolean updateEphemeral(
      ServiceKey key, String ip, int port, String cluster, UnaryOperator<Instance> change) {
    AtomicBoolean found = new AtomicBoolean();
    List<String> touchedLocal = new ArrayList<>();
    // Inside compute, so an owner that goes away meanwhile is not brought back.
    mutate(
        key,
        s -> {
          boolean changed = false;
          for (String owner : s.owners()) {
            List<Instance> updated = new ArrayList<>();
            boolean touched = false;
            for (Instance instance : s.ephemeralOf(owner)) {
              if (instance.ip().equals(ip)
                  && instance.port() == port
                  && instance.clusterName().equals(cluster)) {
                updated.add(change.apply(instance));
                touched = true;
              } else {
                updated.add(instance);
              }
            }
            if (touched) {
              found.set(true);
              if (s.publish(owner, updated, metadata)) {
                changed = true;
                if (!isRemoteOwner(owner)) {
                  touchedLocal.add(owner);
                }
              }
            }
          }
          return changed;
        });
    for (String owner : touchedLocal) {
      localOwnerChanges.accept(owner, key);
    }
    return found.get();
  }

  /** Whether a service has ephemeral instances (a persistent instance may then not be added). */
  boolean hasEphemeral(ServiceKey key) {
    Service service = services.get(key);
    return service != null && service.hasEphemeral();
  }

  void putPersistent(ServiceKey key, Instance instance) {
    mutate(key, s -> s.putPersistent(instance));
  }

  void removePersistent(ServiceKey key, String endpointKey) {
    mutate(key, s -> s.removePersistent(endpointKey));
  }

  Instance persistent(ServiceKey key, String endpointKey) {
    Service service = services.get(key);
    return service == null ? null : service.persistent(endpointKey);
  }

  /** Health of a persistent instance, as the server's health check finds it (soft state). */
  void setPersistentHealth(ServiceKey key, String endpointKey, boolean healthy) {
    mutate(
        key,
        s -> {
          Instance instance = s.persistent(endpointKey);
          return instance != null
              && instance.healthy() != healthy
              && s.putPersistent(instance.withHealthy(healthy));
        });
  }

  /** Every persistent instance, for the health checker. */
  List<Map.Entry<ServiceKey, Instance>> persistentInstances() {
    List<Map.Entry<ServiceKey, Instance>> all = new ArrayList<>();
    for (Service service : services.values()) {
      for (Instance instance : service.persistentInstances()) {
        all.add(Map.entry(service.key, instance));
      }
    }
    return all;
  }

  void putMeta(ServiceKey key, ServiceMeta meta) {
    mutate(
        key,
        s -> {
          s.meta(meta);
          return true;
        });
  }

  /** Forgets a service's metadata (deleting a service); its instances, if any, stay. */
  void clearMeta(ServiceKey key) {
    mutate(
        key,
        s -> {
          if (s.meta() == null) {
            return false;
          }
          s.meta(null);
          return true;
        });
  }

  /** How many instances (of any kind) a service has. */
  int instanceCount(ServiceKey key) {
    Service service = services.get(key);
    return service == null ? 0 : service.instanceCount();
  }

  void subscribe(ServiceKey key, Subscriber subscriber) {
    services.compute(
        key,
        (k, service) -> {
          Service s = service == null ? new Service(k, refTimes) : service;
          s.subscribers.add(subscriber);
          return s;
        });
  }

  void unsubscribe(ServiceKey key, Subscriber subscriber) {
    services.computeIfPresent(
        key,
        (k, s) -> {
          s.subscribers.remove(subscriber);
          return settled(s, s.isListed());
        });
  }

  Collection<Subscriber> subscribers(ServiceKey key) {
    Service service = services.get(key);
    return service == null ? List.of() : service.subscribers;
  }

  /**
   * Names of listed services in a namespace and group, sorted, one page (pages count from 1). Read
   * from the sorted index: no scan, no sort.
   */
  ServicePage list(String namespace, String group, int pageNo, int pageSize) {
    String ns = ServiceKey.canonicalNamespace(namespace);
    String g = group == null || group.isBlank() ? ServiceKey.DEFAULT_GROUP : group;
    return index.page(ns, g, pageNo, pageSize);
  }

  /** Every listed service, for the console and metrics. */
  List<ServiceKey> keys() {
    List<ServiceKey> keys = new ArrayList<>();
    for (Service service : services.values()) {
      if (service.isListed()) {
        keys.add(service.key);
      }
    }
    return keys;
  }

  /**
   * Drops the cached JSON of services nobody queried or was pushed since the previous call; run it
   * every few tens of seconds.
   */
  void forgetIdleRenderings() {
    for (Service service : services.values()) {
      ServiceView view = service.builtView();
      if (view != null) {
        view.forgetRenderingsIfIdle();
      }
    }
  }

  /** How many services are listed. */
  int serviceCount() {
    return index.size();
  }

  int instanceCount() {
    int count = 0;
    for (Service service : services.values()) {
      count += service.instanceCount();
    }
    return count;
  }

  int subscriberCount() {
    int count = 0;
    for (Service service : services.values()) {
      count += service.subscribers.size();
    }
    return count;
  }

  /**
   * After a mutation inside {@code compute}: keeps the index of listed names in step and returns
   * what the map keeps, null when nothing keeps the service.
   */
  private Service settled(Service service, boolean wasListed) {
    boolean listed = service.isListed();
    if (listed != wasListed) {
      if (listed) {
        index.listed(service.key);
      } else {
        index.unlisted(service.key);
      }
    }
    return service.isRemovable() ? null : service;
  }

  private interface Mutation {
    boolean apply(Service service);
  }

  private void mutate(ServiceKey key, Mutation mutation) {
    AtomicBoolean changed = new AtomicBoolean();
    services.compute(
        key,
        (k, service) -> {
          Service s = service == null ? new Service(k, refTimes) : service;
          boolean wasListed = service != null && s.isListed();
          changed.set(mutation.apply(s));
          return settled(s, wasListed);
        });
    if (changed.get()) {
      changes.accept(key);
    }
  }
}
