package io.sluice.server.namespace;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.feature.ReplicatedWrites;
import io.sluice.server.replication.ReplicatedState;
import java.util.function.Supplier;

/**
 * Namespaces, put together: the store (a replicated state) and the one door to it, {@link
 * #service()}.
 */
public final class NamespaceFeature {
  private final NamespaceStore store = new NamespaceStore();
  private final NamespaceService service;

  /**
   * @param newIds the id of a namespace created without one (Nacos uses a random UUID)
   */
  public NamespaceFeature(ReplicatedWrites writes, ServerClock clock, Supplier<String> newIds) {
    this.service = new NamespaceService(store, writes, clock, newIds);
  }

  /** The door. */
  public NamespaceService service() {
    return service;
  }

  /** What the replicator applies namespace commands to. */
  public ReplicatedState state() {
    return store;
  }
}
