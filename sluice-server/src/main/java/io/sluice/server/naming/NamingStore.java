package io.sluice.server.naming;

import io.sluice.server.naming.NamingCommand.PutInstance;
import io.sluice.server.naming.NamingCommand.PutService;
import io.sluice.server.naming.NamingCommand.RemoveInstance;
import io.sluice.server.naming.NamingCommand.RemoveService;
import io.sluice.server.replication.ReplicatedState;
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
 * <p>Concurrency: apply and snapshots run on the replicator's apply thread only.
 */
public final class NamingStore implements ReplicatedState {
  public static final String NAME = "naming";
  private static final Logger log = LoggerFactory.getLogger(NamingStore.class);
  private static final int SNAPSHOT_FORMAT = 1;

  private final ServiceRegistry registry;
  private final Map<ServiceKey, Map<String, Instance>> persistent = new HashMap<>();
  private final Map<ServiceKey, ServiceMeta> metas = new HashMap<>();

  public NamingStore(ServiceRegistry registry) {
    this.registry = registry;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** The outcome of every naming command: it applied. */
  public enum Outcome {
    APPLIED
  }

  @Override
  public Object apply(ByteBuffer command, long logIndex) {
    NamingCommand decoded;
    try {
      decoded = NamingCommand.decode(command);
    } catch (IOException | RuntimeException e) {
      log.error("unreadable naming command at log index {}", logIndex, e);
      return new IllegalArgumentException("unreadable naming command: " + e.getMessage());
    }
    if (decoded instanceof PutInstance put) {
      persistent
          .computeIfAbsent(put.service(), k -> new HashMap<>())
          .put(put.instance().endpointKey(), put.instance());
      Instance current = registry.persistent(put.service(), put.instance().endpointKey());
      // A re-registration keeps the health the checker found, until it checks again.
      Instance applied =
          current == null ? put.instance() : put.instance().withHealthy(current.healthy());
      registry.putPersistent(put.service(), applied);
    } else if (decoded instanceof RemoveInstance remove) {
      String endpoint = remove.ip() + ":" + remove.port() + "#" + remove.cluster();
      Map<String, Instance> instances = persistent.get(remove.service());
      if (instances != null) {
        instances.remove(endpoint);
        if (instances.isEmpty()) {
          persistent.remove(remove.service());
        }
      }
      registry.removePersistent(remove.service(), endpoint);
    } else if (decoded instanceof PutService put) {
      metas.put(put.service(), put.meta());
      registry.putMeta(put.service(), put.meta());
    } else if (decoded instanceof RemoveService remove) {
      metas.remove(remove.service());
      registry.clearMeta(remove.service());
    }
    return Outcome.APPLIED;
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
