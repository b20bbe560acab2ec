package io.sluice.server.testing;

import io.sluice.server.replication.ReplicatedState;
import io.sluice.server.replication.Replicator;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Applies commands in order on one thread, without a log: for unit tests of the layers above
 * replication, which need ordering and asynchrony but not durability.
 */
public final class InlineReplicator implements Replicator, AutoCloseable {
  private final Map<String, ReplicatedState> states;
  private final ExecutorService applyThread =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "inline-apply"));
  private long index;

  public InlineReplicator(List<ReplicatedState> states) {
    this.states =
        new ConcurrentHashMap<>(
            states.stream().collect(Collectors.toMap(ReplicatedState::name, Function.identity())));
  }

  /** Adds a state built after this replicator (a feature that writes through it). */
  public void register(ReplicatedState state) {
    states.put(state.name(), state);
  }

  @Override
  public CompletableFuture<Object> submit(String stateName, byte[] command) {
    ReplicatedState state = states.get(stateName);
    if (state == null) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("no state " + stateName));
    }
    return CompletableFuture.supplyAsync(
        () -> state.apply(ByteBuffer.wrap(command), ++index), applyThread);
  }

  @Override
  public boolean isReady() {
    return true;
  }

  @Override
  public CompletableFuture<Void> ready() {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public void close() {
    applyThread.shutdownNow();
  }
}
