package io.sluice.server.naming;

import io.sluice.server.feature.ReplicatedWrites;
import io.sluice.server.naming.NamingCommand.PutInstance;
import io.sluice.server.naming.NamingCommand.PutService;
import io.sluice.server.naming.NamingCommand.RemoveInstance;
import io.sluice.server.naming.NamingCommand.RemoveService;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The registry as the protocols see it. Ephemeral instances change the in-memory registry at once;
 * persistent instances and service metadata go through the replicated log and are acknowledged once
 * applied. A service holds either ephemeral or persistent instances, never both, as in Nacos.
 */
public final class NamingService {
  private final ServiceRegistry registry;
  private final NamingPushes pushes;
  private final ReplicatedWrites writes;

  public NamingService(ServiceRegistry registry, NamingPushes pushes, ReplicatedWrites writes) {
    this.registry = registry;
    this.pushes = pushes;
    this.writes = writes;
  }

  public ServiceRegistry registry() {
    return registry;
  }

  public NamingPushes pushes() {
    return pushes;
  }

  public void registerEphemeral(String owner, ServiceKey service, Instance instance) {
    InstanceValidator.checkService(service);
    registry.register(owner, service, instance);
  }

  public void deregisterEphemeral(String owner, ServiceKey service, String ip, int port) {
    InstanceValidator.checkService(service);
    registry.deregister(owner, service, ip, port);
  }

  /** Replaces everything {@code owner} publishes for the service. */
  public void publishEphemeral(String owner, ServiceKey service, List<Instance> instances) {
    InstanceValidator.checkService(service);
    registry.publishAll(owner, service, instances);
  }

  public CompletableFuture<Object> registerPersistent(ServiceKey service, Instance instance) {
    InstanceValidator.checkService(service);
    if (registry.hasEphemeral(service)) {
      return CompletableFuture.failedFuture(
          NamingException.invalid(
              "service "
                  + service.groupedName()
                  + " has ephemeral instances; it cannot take persistent ones"));
    }
    return submit(new PutInstance(service, instance.withHealthy(true)));
  }

  public CompletableFuture<Object> deregisterPersistent(
      ServiceKey service, String ip, int port, String cluster) {
    InstanceValidator.checkService(service);
    return submit(
        new RemoveInstance(
            service,
            ip,
            port,
            cluster == null || cluster.isBlank() ? Instance.DEFAULT_CLUSTER : cluster));
  }

  public CompletableFuture<Object> putService(ServiceKey service, ServiceMeta meta) {
    InstanceValidator.checkService(service);
    if (meta.protectThreshold() < 0 || meta.protectThreshold() > 1) {
      return CompletableFuture.failedFuture(
          NamingException.invalid("protectThreshold must be between 0 and 1"));
    }
    InstanceValidator.checkMetadata(meta.metadata());
    return submit(new PutService(service, meta));
  }

  /** Deletes a service; fails while it still has instances, as Nacos does. */
  public CompletableFuture<Object> removeService(ServiceKey service) {
    InstanceValidator.checkService(service);
    if (registry.instanceCount(service) > 0) {
      return CompletableFuture.failedFuture(
          NamingException.invalid(
              "service " + service.groupedName() + " is not empty, it cannot be deleted"));
    }
    return submit(new RemoveService(service));
  }

  private CompletableFuture<Object> submit(NamingCommand command) {
    return writes.submit(
        NamingStore.NAME, NamingCommand.encode(command), Object.class, NamingException::new);
  }
}
