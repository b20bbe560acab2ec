package io.sluice.server.naming;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One service's mutable state: ephemeral instances by owner (a connection, or an HTTP client that
 * sends beats), persistent instances by endpoint, optional service metadata, and subscribers.
 *
 * <p>Concurrency: mutated only inside the registry's map {@code compute} for its key, under this
 * object's monitor; {@link #view} is built under the same monitor and then shared lock-free.
 */
final class Service {
  final ServiceKey key;
  private final RefTimes refTimes;
  private final Map<String, List<Instance>> ephemeralByOwner = new LinkedHashMap<>(4);
  private final Map<String, Instance> persistentByEndpoint = new LinkedHashMap<>(2);
  final Set<Subscriber> subscribers = ConcurrentHashMap.newKeySet();
  private ServiceMeta meta;
  private long lastRefTime;
  private ServiceView view;

  /** A service with nothing in it yet, stamped above every earlier stamp. */
  Service(ServiceKey key, RefTimes refTimes) {
    this.key = key;
    this.refTimes = refTimes;
    this.lastRefTime = refTimes.next();
  }

  synchronized ServiceView view() {
    if (view == null) {
      List<Instance> all = new ArrayList<>();
      for (List<Instance> owned : ephemeralByOwner.values()) {
        all.addAll(owned);
      }
      all.addAll(persistentByEndpoint.values());
      view = new ServiceView(key, all, meta == null ? ServiceMeta.DEFAULT : meta, lastRefTime);
    }
    return view;
  }

  /** The current snapshot if one was built, without building it. */
  synchronized ServiceView builtView() {
    return view;
  }

  /** Records a change: a new lastRefTime above every earlier one, and a view to rebuild. */
  private void changed() {
    lastRefTime = refTimes.next();
    view = null;
  }

  synchronized boolean hasEphemeral() {
    return !ephemeralByOwner.isEmpty();
  }

  synchronized boolean hasPersistent() {
    return !persistentByEndpoint.isEmpty();
  }

  synchronized List<Instance> ephemeralOf(String owner) {
    return ephemeralByOwner.getOrDefault(owner, List.of());
  }

  synchronized Collection<String> owners() {
    return List.copyOf(ephemeralByOwner.keySet());
  }

  /** Replaces what {@code owner} publishes; returns whether anything changed. */
  synchronized boolean publish(String owner, List<Instance> instances) {
    return publish(owner, instances, null);
  }

  /** As {@link #publish(String, List)}, first moving the metadata it holds in {@code budget}. */
  synchronized boolean publish(String owner, List<Instance> instances, MetadataBudget budget) {
    List<Instance> before = ephemeralByOwner.get(owner);
    if (budget != null) {
      budget.change(MetadataBudget.sizeOf(before), MetadataBudget.sizeOf(instances));
    }
    if (instances.isEmpty()) {
      if (before == null) {
        return false;
      }
      ephemeralByOwner.remove(owner);
    } else {
      if (instances.equals(before)) {
        return false;
      }
      ephemeralByOwner.put(owner, List.copyOf(instances));
    }
    changed();
    return true;
  }

  synchronized boolean putPersistent(Instance instance) {
    Instance before = persistentByEndpoint.put(instance.endpointKey(), instance);
    if (instance.equals(before)) {
      return false;
    }
    changed();
    return true;
  }

  synchronized boolean removePersistent(String endpointKey) {
    if (persistentByEndpoint.remove(endpointKey) == null) {
      return false;
    }
    changed();
    return true;
  }

  synchronized Instance persistent(String endpointKey) {
    return persistentByEndpoint.get(endpointKey);
  }

  synchronized List<Instance> persistentInstances() {
    return List.copyOf(persistentByEndpoint.values());
  }

  synchronized ServiceMeta meta() {
    return meta;
  }

  synchronized void meta(ServiceMeta meta) {
    this.meta = meta;
    changed();
  }

  synchronized int instanceCount() {
    int count = persistentByEndpoint.size();
    for (List<Instance> owned : ephemeralByOwner.values()) {
      count += owned.size();
    }
    return count;
  }

  /** Listed by service-list queries: it has instances or was created explicitly. */
  synchronized boolean isListed() {
    return meta != null || !ephemeralByOwner.isEmpty() || !persistentByEndpoint.isEmpty();
  }

  /** Nothing keeps it: no instances, no metadata, no subscribers. */
  synchronized boolean isRemovable() {
    return !isListed() && subscribers.isEmpty();
  }
}
