package io.sluice.server.naming;

import io.sluice.server.feature.Fault;
import io.sluice.server.naming.NamingCommand.CreateService;
import io.sluice.server.naming.NamingCommand.DeleteService;
import io.sluice.server.naming.NamingCommand.PutInstance;
import io.sluice.server.naming.NamingCommand.PutService;
import io.sluice.server.naming.NamingCommand.RemoveInstance;
import io.sluice.server.naming.NamingCommand.RemoveService;
import io.sluice.server.naming.NamingCommand.SetClusterCheck;
import io.sluice.server.naming.NamingCommand.UpdateInstance;
import io.sluice.server.naming.NamingCommand.UpdateService;
import io.sluice.server.naming.health.HealthCheck;
import io.sluice.server.replication.ReplicatedState;
import io.sluice.server.replication.UnknownFormatException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicated part of the registry — persistent instances and service metadata — applied to the
 * {@link ServiceRegistry}. The registry is what readers see; this class keeps the replicated copy
 * it snapshots from, so health (soft state, changed by health checks) never leaks into the log or a
 * snapshot.
 *
 * <p>Every rule that decides whether a command applies is checked here, in apply, from this
 * replicated copy and from what the command says the accepting node saw of ephemeral instances
 * (soft state, not replicated): a service to create must not exist, one to change or delete must,
 * one to delete must have no instance, an instance to change must be there. So every replica makes
 * the same decision, and {@link NamingOutcome} reports it.
 *
 * <p>Snapshot section, format {@value #SNAPSHOT_FORMAT} (unchanged since the first version): {@code
 * int format, int metaCount}, then service and meta per service, {@code int instanceCount}, then
 * service and instance per persistent instance ({@link NamingCommand} gives the encodings).
 *
 * <p>Persistent instances' metadata (characters of keys and values, all together) is bounded here,
 * in apply, so every replica refuses the same registration: one that would grow it past the bound
 * is rejected {@code OVERLOADED}, naming the limit; shrinking always applies. Every node of a
 * cluster must run with the same bound.
 *
 * <p>Concurrency: apply and snapshots run on the replicator's apply thread only.
 */
final class NamingStore implements ReplicatedState {
  static final String NAME = "naming";
  private static final Logger log = LoggerFactory.getLogger(NamingStore.class);
  private static final int SNAPSHOT_FORMAT = 1;

  private final ServiceRegistry registry;
  private final Map<ServiceKey, Map<String, Instance>> persistent = new HashMap<>();
  private final Map<ServiceKey, ServiceMeta> metas = new HashMap<>();
  private final long maxMetadataChars;

  /** Metadata characters the persistent instances hold; apply thread only. */
  private long metadataChars;

  NamingStore(ServiceRegistry registry) {
    this(registry, Long.MAX_VALUE);
  }

  /**
   * @param maxMetadataChars bound on the metadata of all persistent instances together
   */
  NamingStore(ServiceRegistry registry, long maxMetadataChars) {
    this.registry = registry;
    this.maxMetadataChars = maxMetadataChars;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Object apply(ByteBuffer command, long logIndex) {
    NamingCommand decoded;
    try {
      decoded = NamingCommand.decode(command);
    } catch (UnknownFormatException newer) {
      throw newer; // stops replication here: skipping the command would lose it
    } catch (IOException | RuntimeException e) {
      log.error("unreadable naming command at log index {}", logIndex, e);
      return new NamingOutcome.Rejected(
          Fault.INTERNAL, "unreadable naming command: " + e.getMessage());
    }
    if (decoded instanceof PutInstance put) {
      NamingOutcome full = refuseGrowth(put.service(), put.instance());
      if (full != null) {
        return full;
      }
      putInstance(put.service(), put.instance());
      return NamingOutcome.APPLIED;
    }
    if (decoded instanceof RemoveInstance remove) {
      removeInstance(remove.service(), remove.ip() + ":" + remove.port() + "#" + remove.cluster());
      return NamingOutcome.APPLIED;
    }
    if (decoded instanceof UpdateInstance update) {
      return updateInstance(update);
    }
    if (decoded instanceof CreateService create) {
      if (exists(create.service(), create.ephemeralPresent())) {
        return new NamingOutcome.ServiceExists(create.service());
      }
      putMeta(create.service(), create.meta());
      return NamingOutcome.APPLIED;
    }
    if (decoded instanceof UpdateService update) {
      if (!exists(update.service(), update.ephemeralPresent())) {
        return new NamingOutcome.ServiceNotFound(update.service());
      }
      putMeta(update.service(), keepingHealthChecks(update.service(), update.meta()));
      return NamingOutcome.APPLIED;
    }
    if (decoded instanceof SetClusterCheck check) {
      return setClusterCheck(check);
    }
    if (decoded instanceof DeleteService delete) {
      ServiceKey service = delete.service();
      if (!exists(service, delete.ephemeralPresent())) {
        return new NamingOutcome.ServiceNotFound(service);
      }
      if (persistent.containsKey(service) || delete.ephemeralPresent()) {
        return new NamingOutcome.ServiceNotEmpty(service);
      }
      clearMeta(service);
      return NamingOutcome.APPLIED;
    }
    if (decoded instanceof PutService put) {
      putMeta(put.service(), put.meta());
      return NamingOutcome.APPLIED;
    }
    clearMeta(((RemoveService) decoded).service());
    return NamingOutcome.APPLIED;
  }

  /** A service exists when it has metadata or instances, replicated or (as seen) ephemeral. */
  private boolean exists(ServiceKey service, boolean ephemeralPresent) {
    return ephemeralPresent || metas.containsKey(service) || persistent.containsKey(service);
  }

  /** The refusal when putting {@code instance} would grow the metadata past its bound, or null. */
  private NamingOutcome refuseGrowth(ServiceKey service, Instance instance) {
    Map<String, Instance> instances = persistent.get(service);
    Instance old = instances == null ? null : instances.get(instance.endpointKey());
    long growth = metadataChars(instance) - metadataChars(old);
    if (growth <= 0 || metadataChars + growth <= maxMetadataChars) {
      return null;
    }
    return new NamingOutcome.Rejected(
        Fault.OVERLOADED,
        "persistent instance metadata is full: persistent instances hold "
            + metadataChars
            + " of the "
            + maxMetadataChars
            + " characters allowed (max-instance-metadata-bytes)");
  }

  private static long metadataChars(Instance instance) {
    return instance == null ? 0 : MetadataBudget.sizeOf(List.of(instance));
  }

  private void putInstance(ServiceKey service, Instance instance) {
    Instance replaced =
        persistent
            .computeIfAbsent(service, k -> new HashMap<>())
            .put(instance.endpointKey(), instance);
    metadataChars += metadataChars(instance) - metadataChars(replaced);
    Instance current = registry.persistent(service, instance.endpointKey());
    // A re-registration keeps the health the checker found, until it checks again.
    registry.putPersistent(
        service, current == null ? instance : instance.withHealthy(current.healthy()));
  }

  private void removeInstance(ServiceKey service, String endpoint) {
    Map<String, Instance> instances = persistent.get(service);
    if (instances != null) {
      metadataChars -= metadataChars(instances.remove(endpoint));
      if (instances.isEmpty()) {
        persistent.remove(service);
      }
    }
    registry.removePersistent(service, endpoint);
  }

  private NamingOutcome updateInstance(UpdateInstance update) {
    ServiceKey service = update.service();
    Map<String, Instance> instances = persistent.get(service);
    Instance old =
        instances == null
            ? null
            : instances.get(update.ip() + ":" + update.port() + "#" + update.cluster());
    if (old == null) {
      return new NamingOutcome.InstanceNotFound(
          service, exists(service, update.ephemeralPresent()));
    }
    Instance changed;
    try {
      changed = update.change().applyTo(service, old);
    } catch (NamingException invalid) {
      return new NamingOutcome.Rejected(Fault.INVALID, invalid.getMessage());
    }
    NamingOutcome full = refuseGrowth(service, changed);
    if (full != null) {
      return full;
    }
    putInstance(service, changed);
    return NamingOutcome.APPLIED;
  }

  private NamingOutcome setClusterCheck(SetClusterCheck check) {
    ServiceKey service = check.service();
    if (!exists(service, check.ephemeralPresent())) {
      return new NamingOutcome.ServiceNotFound(service);
    }
    ServiceMeta current = metas.getOrDefault(service, ServiceMeta.DEFAULT);
    Map<String, String> metadata = new HashMap<>(current.metadata());
    metadata.put(HealthCheck.clusterKey(check.cluster()), check.healthChecker());
    putMeta(service, new ServiceMeta(current.protectThreshold(), metadata, current.selector()));
    return NamingOutcome.APPLIED;
  }

  /**
   * The new metadata, plus the health-check keys of the current one that it does not mention, so a
   * client that updates a service without knowing of them does not switch its checks off.
   */
  private ServiceMeta keepingHealthChecks(ServiceKey service, ServiceMeta update) {
    ServiceMeta current = metas.get(service);
    if (current == null) {
      return update;
    }
    Map<String, String> merged = new HashMap<>(update.metadata());
    for (Map.Entry<String, String> entry : current.metadata().entrySet()) {
      if (HealthCheck.isHealthCheckKey(entry.getKey())) {
        merged.putIfAbsent(entry.getKey(), entry.getValue());
      }
    }
    return new ServiceMeta(update.protectThreshold(), merged, update.selector());
  }

  private void putMeta(ServiceKey service, ServiceMeta meta) {
    metas.put(service, meta);
    registry.putMeta(service, meta);
  }

  private void clearMeta(ServiceKey service) {
    metas.remove(service);
    registry.clearMeta(service);
  }

  @Override
  public void writeSnapshot(DataOutputStream out) throws IOException {
    out.writeInt(SNAPSHOT_FORMAT);
    out.writeInt(metas.size());
    for (Map.Entry<ServiceKey, ServiceMeta> entry : metas.entrySet()) {
      NamingCommand.writeService(out, entry.getKey());
      NamingCommand.writeMeta(out, entry.getValue());
    }
    int count = 0;
    for (Map<String, Instance> instances : persistent.values()) {
      count += instances.size();
    }
    out.writeInt(count);
    for (Map.Entry<ServiceKey, Map<String, Instance>> entry : persistent.entrySet()) {
      for (Instance instance : entry.getValue().values()) {
        NamingCommand.writeService(out, entry.getKey());
        NamingCommand.writeInstance(out, instance);
      }
    }
  }

  @Override
  public void loadSnapshot(DataInputStream in) throws IOException {
    int format = in.readInt();
    if (format != SNAPSHOT_FORMAT) {
      throw new IOException("unknown naming snapshot format " + format);
    }
    Map<ServiceKey, ServiceMeta> loadedMetas = new HashMap<>();
    int metaCount = in.readInt();
    for (int i = 0; i < metaCount; i++) {
      loadedMetas.put(NamingCommand.readService(in), NamingCommand.readMeta(in));
    }
    Map<ServiceKey, Map<String, Instance>> loaded = new HashMap<>();
    int instanceCount = in.readInt();
    for (int i = 0; i < instanceCount; i++) {
      ServiceKey service = NamingCommand.readService(in);
      Instance instance = NamingCommand.readInstance(in);
      loaded.computeIfAbsent(service, k -> new HashMap<>()).put(instance.endpointKey(), instance);
    }
    // Replace what the registry holds of the replicated part with the snapshot's.
    Set<ServiceKey> touched = new HashSet<>(persistent.keySet());
    touched.addAll(metas.keySet());
    for (ServiceKey service : touched) {
      Map<String, Instance> old = persistent.getOrDefault(service, Map.of());
      for (String endpoint : List.copyOf(old.keySet())) {
        registry.removePersistent(service, endpoint);
      }
      if (metas.containsKey(service)) {
        registry.clearMeta(service);
      }
    }
    persistent.clear();
    metas.clear();
    metas.putAll(loadedMetas);
    persistent.putAll(loaded);
    metadataChars = 0;
    for (Map<String, Instance> instances : loaded.values()) {
      metadataChars += MetadataBudget.sizeOf(List.copyOf(instances.values()));
    }
    for (Map.Entry<ServiceKey, ServiceMeta> entry : metas.entrySet()) {
      registry.putMeta(entry.getKey(), entry.getValue());
    }
    for (Map.Entry<ServiceKey, Map<String, Instance>> entry : persistent.entrySet()) {
      for (Instance instance : entry.getValue().values()) {
        registry.putPersistent(entry.getKey(), instance);
      }
    }
  }
}
