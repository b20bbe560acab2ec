package io.sluice.server.naming;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.feature.ReplicatedWrites;
import io.sluice.server.replication.Replicator;
import io.sluice.server.replication.ReplicatorNotReadyException;
import io.sluice.server.testing.ManualClock;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node's publishing of its own ephemeral instances, on a real scheduler thread, with the
 * replicated log played by a function: every registration reaches the other nodes once, and a store
 * that refuses every write at once neither spins the flush nor keeps the scheduler's other work
 * from running.
 */
class EphemeralSyncTest {
  private static final NamingFeature.Membership FOLLOWER =
      new NamingFeature.Membership() {
        @Override
        public boolean isLeader() {
          return false;
        }

        @Override
        public Set<String> members() {
          return Set.of("node-a", "node-b");
        }

        @Override
        public Map<String, Long> silentMillis() {
          return Map.of();
        }
      };

  private final ManualClock clock = new ManualClock();
  private final ServiceRegistry registry = new ServiceRegistry(clock);
  private final EphemeralStore store = new EphemeralStore(registry, clock, "node-a", "inc-a");
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "test-scheduler"));
  private final ExecutorService log = Executors.newSingleThreadExecutor();
  private final AtomicLong submissions = new AtomicLong();
  private EphemeralSync sync;

  @AfterEach
  void stop() {
    if (sync != null) {
      sync.close();
    }
    scheduler.shutdownNow();
    log.shutdownNow();
  }

  private void startSync(Function<byte[], CompletableFuture<Object>> replicate) {
    Replicator replicator =
        new Replicator() {
          @Override
          public CompletableFuture<Object> submit(String stateName, byte[] command) {
            submissions.incrementAndGet();
            return replicate.apply(command);
          }

          @Override
          public boolean isReady() {
            return true;
          }

          @Override
          public CompletableFuture<Void> ready() {
            return CompletableFuture.completedFuture(null);
          }
        };
    sync =
        new EphemeralSync(
            registry,
            store,
            new ReplicatedWrites(replicator),
            scheduler,
            FOLLOWER,
            "node-a",
            "inc-a",
            10_000);
  }

  /** Registers one instance for each of {@code owners} connections, each in its own service. */
  private void register(int owners) {
    for (int i = 0; i < owners; i++) {
      ServiceKey service = ServiceKey.of("public", "DEFAULT_GROUP", "svc-" + i);
      registry.register(
          "conn-" + i,
          service,
          InstanceValidator.instance(
              service,
              null,
              "10.0." + (i / 250) + "." + (i % 250),
              80,
              null,
              null,
              null,
              true,
              null,
              Map.of()));
    }
  }

  @Test
  void everyRegistrationIsPublishedOnceAndListedByAnotherNode() {
    ServiceRegistry otherRegistry = new ServiceRegistry(clock);
    EphemeralStore otherNode = new EphemeralStore(otherRegistry, clock, "node-b", "inc-b");
    AtomicLong index = new AtomicLong();
    // The log: applied in order on one thread, as another node applies committed entries.
    startSync(
        command ->
            CompletableFuture.supplyAsync(
                () -> otherNode.apply(ByteBuffer.wrap(command), index.incrementAndGet()), log));
    int owners = 3 * EphemeralSync.MAX_PER_FLUSH + 100;

    register(owners);

    Awaitility.await()
        .atMost(30, TimeUnit.SECONDS)
        .until(() -> otherRegistry.instanceCount() == owners);
    assertThat(submissions.get()).as("one publication per (owner, service)").isEqualTo(owners);
  }

  @Test
  void aStoreRefusingEveryWriteAtOnceNeitherSpinsTheFlushNorStarvesTheScheduler() throws Exception {
    // Each submission fails before it returns and puts its key back into the set being walked.
    startSync(
        command ->
            CompletableFuture.failedFuture(
                new ReplicatorNotReadyException("the store cannot commit writes now")));
    int owners = 3_000;
    register(owners);
    long before = submissions.get();

    // Other work on the same thread still gets its turn, promptly.
    for (int i = 0; i < 10; i++) {
      CountDownLatch ran = new CountDownLatch(1);
      scheduler.execute(ran::countDown);
      assertThat(ran.await(5, TimeUnit.SECONDS)).as("scheduler task %d ran", i).isTrue();
      Thread.sleep(100);
    }

    // About 1 s passed: each key is tried at most once per flush, a flush takes at most
    // MAX_PER_FLUSH keys, and failed ones wait RETRY_MILLIS. A walk that met each re-queued key
    // again would make millions of attempts; allow ten times the designed rate.
    long attempts = submissions.get() - before;
    long designedPerSecond =
        (1_000 / EphemeralSync.RETRY_MILLIS + 1) * (long) EphemeralSync.MAX_PER_FLUSH;
    assertThat(attempts).isPositive().isLessThan(10 * designedPerSecond);
  }
}
