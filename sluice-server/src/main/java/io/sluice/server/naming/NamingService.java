package io.sluice.server.naming;

import io.sluice.server.feature.ReplicatedWrites;
import io.sluice.server.naming.NamingCommand.CreateService;
import io.sluice.server.naming.NamingCommand.DeleteService;
import io.sluice.server.naming.NamingCommand.PutInstance;
import io.sluice.server.naming.NamingCommand.RemoveInstance;
import io.sluice.server.naming.NamingCommand.SetClusterCheck;
import io.sluice.server.naming.NamingCommand.UpdateInstance;
import io.sluice.server.naming.NamingCommand.UpdateService;
import io.sluice.server.naming.health.HealthCheck;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * The registry's one door: every protocol registers, queries, subscribes and manages services
 * through here and nowhere else.
 *
 * <ul>
 *   <li><b>Ephemeral instances</b> are soft state owned by whoever published them: a gRPC
 *       connection (its id is the owner), or an HTTP client that keeps them alive with heartbeats.
 *       They change the in-memory registry at once; the methods return when done and throw {@link
 *       NamingException} to refuse.
 *   <li><b>Persistent instances and service metadata</b> go through the replicated log ({@link
 *       ReplicatedWrites}) and are acknowledged once applied. The future completes with a {@link
 *       NamingOutcome}, decided in apply (does the service exist, is it empty, is the instance
 *       there); it fails with {@link NamingException} when the request was refused or could not be
 *       written. What the accepting node saw of ephemeral instances travels in the command.
 * </ul>
 *
 * A service holds either ephemeral or persistent instances, never both, as in Nacos.
 */
public final class NamingService {
  private final ServiceRegistry registry;
  private final NamingPushes pushes;
  private final BeatMonitor beats;
  private final ReplicatedWrites writes;

  NamingService(
      ServiceRegistry registry, NamingPushes pushes, BeatMonitor beats, ReplicatedWrites writes) {
    this.registry = registry;
    this.pushes = pushes;
    this.beats = beats;
    this.writes = writes;
  }

  /** The owner of the instances an HTTP client at {@code ip:port} keeps alive with heartbeats. */
  public static String heartbeatOwnerOf(String ip, int port) {
    return BeatMonitor.ownerOf(ip, port);
  }

  // --- reads ---------------------------------------------------------------------------------

  /** A service's current snapshot, or null when it does not exist. */
  public ServiceView view(ServiceKey service) {
    return readable().view(service);
  }

  /** A service's current snapshot, or an empty one (stamped now) when it does not exist. */
  public ServiceView viewOrEmpty(ServiceKey service) {
    return readable().viewOrEmpty(service);
  }

  /** Whether a service is there: it has instances or was created. */
  public boolean exists(ServiceKey service) {
    return readable().exists(service);
  }

  /** A service's metadata, or null when it has none (it exists only through its instances). */
  public ServiceMeta meta(ServiceKey service) {
    return readable().meta(service);
  }

  /** One page of a group's service names, sorted; read from an index, no scan. */
  public ServicePage list(String namespace, String group, int pageNo, int pageSize) {
    return readable().list(namespace, group, pageNo, pageSize);
  }

  /**
   * The clients subscribed to a service through this node, sorted by address. Subscriptions belong
   * to client connections and are not replicated: in a cluster each node lists its own.
   */
  public List<Subscriber.Client> subscribers(ServiceKey service) {
    List<Subscriber.Client> clients = new ArrayList<>();
    for (Subscriber subscriber : registry.subscribers(service)) {
      clients.add(subscriber.client());
    }
    clients.sort(
        Comparator.comparing(Subscriber.Client::ip).thenComparingInt(Subscriber.Client::port));
    return clients;
  }

  /** How many instances, of any kind, a service has. */
  public int instanceCount(ServiceKey service) {
    return readable().instanceCount(service);
  }

  /** The ephemeral instances an owner published for a service. */
  public List<Instance> publishedBy(String owner, ServiceKey service) {
    return readable().publishedBy(owner, service);
  }

  /** Counts for the metrics endpoint. Scans every service: call it on a worker. */
  public NamingStats stats() {
    return new NamingStats(
        readable().serviceCount(),
        readable().instanceCount(),
        readable().subscriberCount(),
        readable().persistentInstances().size(),
        beats.clientCount());
  }

  // --- ephemeral instances -------------------------------------------------------------------

  /** Publishes one ephemeral instance for {@code owner}, replacing what it had in the service. */
  public void registerEphemeral(String owner, ServiceKey service, Instance instance) {
    InstanceValidator.checkService(service);
    registry.register(owner, service, instance);
  }

  /** Removes the owner's instance at {@code ip:port} from the service. */
  public void deregisterEphemeral(String owner, ServiceKey service, String ip, int port) {
    InstanceValidator.checkService(service);
    registry.deregister(owner, service, ip, port);
  }

  /** Replaces everything {@code owner} publishes for the service. */
  public void publishEphemeral(String owner, ServiceKey service, List<Instance> instances) {
    InstanceValidator.checkService(service);
    registry.publishAll(owner, service, instances);
  }

  /** Removes from what {@code owner} publishes for the service the instances that match. */
  public void deregisterEphemeral(
      String owner, ServiceKey service, Predicate<Instance> deregistered) {
    InstanceValidator.checkService(service);
    List<Instance> remaining = new ArrayList<>(registry.publishedBy(owner, service));
    remaining.removeIf(deregistered);
    registry.publishAll(owner, service, remaining);
  }

  /** Removes everything an owner published: its connection closed. */
  public void removeOwner(String owner) {
    registry.removeOwner(owner);
  }

  /**
   * Registers (or replaces) the instance an HTTP client keeps alive with heartbeats; counts as a
   * beat. Refused ({@link io.sluice.server.feature.Fault#OVERLOADED}) beyond the bounds on such
   * clients.
   */
  public void registerHeartbeating(ServiceKey service, Instance instance) {
    InstanceValidator.checkService(service);
    beats.register(service, instance);
  }

  /**
   * A heartbeat of the instance at {@code ip:port}. A beat that carries the instance re-registers
   * it when it was gone; a light beat for an unknown instance is answered "not found".
   *
   * @param carried the instance the beat describes, or null for a light beat
   */
  public Beat heartbeat(ServiceKey service, String ip, int port, Instance carried) {
    InstanceValidator.checkService(service);
    return beats.beat(service, ip, port, carried);
  }

  /** Removes the instance a heartbeating client at {@code ip:port} registered. */
  public void deregisterHeartbeating(ServiceKey service, String ip, int port) {
    InstanceValidator.checkService(service);
    beats.deregister(service, ip, port);
  }

  // --- subscriptions -------------------------------------------------------------------------

  /** Subscribes and sends the subscriber the current snapshot right away. */
  public void subscribe(ServiceKey service, Subscriber subscriber) {
    registry.subscribe(service, subscriber);
    pushes.pushNow(service, subscriber);
  }

  public void unsubscribe(ServiceKey service, Subscriber subscriber) {
    registry.unsubscribe(service, subscriber);
  }

  // --- replicated ----------------------------------------------------------------------------

  /** Registers a persistent instance; refused while the service has ephemeral instances. */
  public CompletableFuture<NamingOutcome> registerPersistent(
      ServiceKey service, Instance instance) {
    try {
      InstanceValidator.checkService(service);
      if (registry.hasEphemeral(service)) {
        throw NamingException.invalid(
            "service "
                + service.groupedName()
                + " has ephemeral instances; it cannot take persistent ones");
      }
    } catch (NamingException refused) {
      return CompletableFuture.failedFuture(refused);
    }
    return submit(new PutInstance(service, instance.withHealthy(true)));
  }

  /** Deregisters a persistent instance; applied also when there is none, as in Nacos. */
  public CompletableFuture<NamingOutcome> deregisterPersistent(
      ServiceKey service, String ip, int port, String cluster) {
    try {
      InstanceValidator.checkService(service);
    } catch (NamingException refused) {
      return CompletableFuture.failedFuture(refused);
    }
    return submit(
        new RemoveInstance(
            service,
            ip,
            port,
            cluster == null || cluster.isBlank() ? Instance.DEFAULT_CLUSTER : cluster));
  }

  /**
   * Changes the instance at {@code ip:port} in {@code cluster}: an ephemeral one at once, whoever
   * published it (the owner keeps it, and a later registration by the owner replaces the change, as
   * Nacos's metadata overlay behaves), else the persistent one through the log. Completes with
   * {@link NamingOutcome.InstanceNotFound} when the service has neither.
   */
  public CompletableFuture<NamingOutcome> updateInstance(
      ServiceKey service, String ip, int port, String cluster, InstanceChange change) {
    try {
      InstanceValidator.checkService(service);
      if (registry.updateEphemeral(
          service, ip, port, cluster, old -> change.applyTo(service, old))) {
        return CompletableFuture.completedFuture(NamingOutcome.APPLIED);
      }
    } catch (NamingException refused) {
      return CompletableFuture.failedFuture(refused);
    }
    return submit(
        new UpdateInstance(service, ip, port, cluster, change, registry.hasEphemeral(service)));
  }

  /** Creates a service; {@link NamingOutcome.ServiceExists} if it exists. */
  public CompletableFuture<NamingOutcome> createService(ServiceKey service, ServiceMeta meta) {
    try {
      checkMeta(service, meta);
    } catch (NamingException refused) {
      return CompletableFuture.failedFuture(refused);
    }
    return submit(new CreateService(service, meta, registry.hasEphemeral(service)));
  }

  /**
   * Replaces a service's threshold, metadata and selector; health-check keys the new metadata does
   * not mention are kept. {@link NamingOutcome.ServiceNotFound} if it does not exist.
   */
  public CompletableFuture<NamingOutcome> updateService(ServiceKey service, ServiceMeta meta) {
    try {
      checkMeta(service, meta);
    } catch (NamingException refused) {
      return CompletableFuture.failedFuture(refused);
    }
    return submit(new UpdateService(service, meta, registry.hasEphemeral(service)));
  }

  /**
   * Sets how one cluster of a service is health-checked ({@link HealthCheck}). {@link
   * NamingOutcome.ServiceNotFound} if the service does not exist.
   */
  public CompletableFuture<NamingOutcome> setClusterHealthCheck(
      ServiceKey service, String cluster, String healthChecker) {
    try {
      InstanceValidator.checkService(service);
      InstanceValidator.checkCluster(cluster);
      HealthCheck.parse(healthChecker);
    } catch (NamingException refused) {
      return CompletableFuture.failedFuture(refused);
    }
    return submit(
        new SetClusterCheck(service, cluster, healthChecker, registry.hasEphemeral(service)));
  }

  /**
   * Deletes a service: {@link NamingOutcome.ServiceNotFound} if it does not exist, {@link
   * NamingOutcome.ServiceNotEmpty} while it has instances, as Nacos refuses.
   */
  public CompletableFuture<NamingOutcome> deleteService(ServiceKey service) {
    try {
      InstanceValidator.checkService(service);
    } catch (NamingException refused) {
      return CompletableFuture.failedFuture(refused);
    }
    return submit(new DeleteService(service, registry.hasEphemeral(service)));
  }

  /**
   * The registry, for a read. Every read passes here: in a cluster, the barrier that makes a
   * follower's read of the replicated part linearizable goes here.
   */
  private ServiceRegistry readable() {
    return registry;
  }

  private static void checkMeta(ServiceKey service, ServiceMeta meta) {
    InstanceValidator.checkService(service);
    if (meta.protectThreshold() < 0 || meta.protectThreshold() > 1) {
      throw NamingException.invalid("protectThreshold must be between 0 and 1");
    }
    InstanceValidator.checkMetadata(meta.metadata());
    HealthCheck.validate(meta.metadata());
  }

  private CompletableFuture<NamingOutcome> submit(NamingCommand command) {
    return writes.submit(
        NamingStore.NAME, NamingCommand.encode(command), NamingOutcome.class, NamingException::new);
  }
}
