package io.sluice.server;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.feature.WriteGate;
import io.sluice.server.replication.GroupStatus;
import io.sluice.server.replication.RatisReplicator;
import io.sluice.server.replication.ReplicationPeer;
import io.sluice.server.replication.Replicator;
import io.sluice.server.replication.ReplicatorNotReadyException;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicator the features write through while the real one starts. Opening the log and electing
 * the one peer takes about a second, which the server spends starting its network ports in
 * parallel; until the real replicator is there, writes wait for it and readiness is false. If it
 * fails to start, writes and {@link #ready()} fail with the cause.
 *
 * <p>It exists before the replicated states, so that every feature can be built in one step with
 * its writes going here; {@link #start} then starts the real one once all states are known.
 *
 * <p>It also keeps the store alive ({@link #supervise}): once a second, on a thread of its own so
 * that no other background work can delay it, it asks the engine whether it can still commit
 * ({@link RatisReplicator#failure()}: its log failed on a full disk, a Ratis thread died, Ratis
 * shut the member down after a JVM pause longer than its close threshold). While it cannot, writes
 * fail at once with the reason, readiness reports it, and as soon as the write gate allows (space
 * is back) the engine is restarted in-process from durable state ({@link RatisReplicator#restart}).
 * A failed restart is tried again after {@value #FIRST_RETRY_MILLIS} ms, then twice as long each
 * time up to {@value #MAX_RETRY_MILLIS} ms, until it works; each attempt that fails is logged once
 * and readiness names it. A cluster node removed from the group by a membership change also stops
 * committing, on purpose: it is not restarted, and readiness says it was removed ({@link
 * #removal()}).
 */
final class StartingReplicator implements Replicator, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StartingReplicator.class);

  static final long CHECK_MILLIS = 1_000;
  static final long FIRST_RETRY_MILLIS = 1_000;
  static final long MAX_RETRY_MILLIS = 30_000;

  private final CompletableFuture<Replicator> starting = new CompletableFuture<>();
  private final boolean standalone;
  private volatile boolean startRequested;

  /** The engine writes go to: set by the first start, replaced by each in-process restart. */
  private volatile Replicator current;

  /** Why the engine cannot commit now, or null; set and cleared by the supervision. */
  private volatile String broken;

  /** Set once an engine of this node has joined the cluster; kept across in-process restarts. */
  private volatile boolean wasMember;

  /** Set when a cluster engine's failure was first seen; cleared by a restart. */
  private volatile boolean failureSeen;

  /** Why this node takes no part in the cluster any more, once it was removed; never cleared. */
  private volatile String removal;

  private final AtomicBoolean restarting = new AtomicBoolean();

  /** Restarts tried since the engine last worked; 0 while none failed. */
  private volatile int failedRestarts;

  private volatile long nextRestartNanos;
  private volatile boolean closed;

  /**
   * @param standalone whether the store is a one-peer group: then reads need no barrier even while
   *     it starts (they see what is there, as before the store is ready); a cluster node refuses
   *     linearizable reads until its store runs
   */
  StartingReplicator(boolean standalone) {
    this.standalone = standalone;
  }

  /** Starts the real replicator on a thread of its own; returns at once. */
  void start(Supplier<Replicator> replicator) {
    startRequested = true;
    Thread starter =
        new Thread(
            () -> {
              try {
                Replicator started = replicator.get();
                current = started;
                starting.complete(started);
              } catch (RuntimeException | Error e) {
                starting.completeExceptionally(e);
              }
            },
            "sluice-store-start");
    starter.setDaemon(true);
    starter.start();
  }

  /**
   * Checks the engine every {@value #CHECK_MILLIS} ms on {@code supervisor}, and restarts a failed
   * one (on a thread of its own) while {@code gate} lets writes through.
   *
   * @param supervisor a thread for this alone: a busy shared scheduler once kept a stopped store
   *     from being restarted for minutes
   */
  void supervise(ScheduledExecutorService supervisor, WriteGate gate, ServerClock clock) {
    supervisor.scheduleWithFixedDelay(
        () -> check(gate, clock), CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
  }

  /**
   * Why this node is no longer part of the cluster (a membership change removed it), or null. Its
   * store is then stopped for good in this process: it takes no writes and is not restarted.
   */
  String removal() {
    return removal;
  }

  /** Why the store cannot commit writes now (and what is being done), or null. */
  String whyBroken() {
    String known = broken;
    if (known != null) {
      return known;
    }
    return current instanceof RatisReplicator engine ? engine.failure() : null;
  }

  void check(WriteGate gate, ServerClock clock) {
    if (closed
        || removal != null
        || restarting.get()
        || !(current instanceof RatisReplicator engine)) {
      return;
    }
    if (engine.joinedOnce()) {
      wasMember = true;
    }
    String failure = engine.failure();
    if (failure == null) {
      return;
    }
    if (!standalone && !failureSeen) {
      // Ratis closes a removed member before it tells the state machine why: look again at the
      // next check, when the reason is known, before deciding on a restart.
      failureSeen = true;
      return;
    }
    if (engine.removedFromGroup(wasMember)) {
      removal =
          "this node was removed from the cluster's replication group (a membership change); it"
              + " takes no writes and is not restarted: stop it";
      broken = removal;
      log.warn("{} (the cluster goes on without it)", removal);
      return;
    }
    if (broken == null) {
      broken = failure + "; writes are refused until the store restarts itself";
      log.error("the store cannot commit writes: {}", failure);
    }
    String blocked = gate.refusal();
    if (blocked != null || (failedRestarts > 0 && clock.nanoTime() - nextRestartNanos < 0)) {
      return;
    }
    if (!restarting.compareAndSet(false, true)) {
      return;
    }
    int attempt = failedRestarts + 1;
    Thread restarter =
        new Thread(() -> restart(engine, failure, attempt, clock), "sluice-store-restart");
    restarter.setDaemon(true);
    restarter.start();
  }

  private void restart(RatisReplicator failed, String failure, int attempt, ServerClock clock) {
    try {
      RatisReplicator fresh = RatisReplicator.restart(failed);
      current = fresh;
      failureSeen = false;
      if (closed) {
        fresh.close();
        return;
      }
      broken = null;
      failedRestarts = 0;
      log.info(
          "the store restarted in-process (attempt {}) after: {}; writes resume", attempt, failure);
    } catch (IOException | RuntimeException e) {
      long retryMillis = retryMillis(attempt);
      nextRestartNanos = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(retryMillis);
      failedRestarts = attempt;
      String why = String.valueOf(e.getMessage());
      broken =
          failure
              + "; restarting the store failed (attempt "
              + attempt
              + ", the next in "
              + retryMillis
              + " ms): "
              + why;
      log.warn(
          "restarting the store failed (attempt {}; the next in {} ms): {}",
          attempt,
          retryMillis,
          why);
    } finally {
      restarting.set(false);
    }
  }

  /** How long after failed attempt {@code attempt} (from 1) the next one starts. */
  static long retryMillis(int attempt) {
    int doublings = Math.min(attempt - 1, 16);
    return Math.min(MAX_RETRY_MILLIS, FIRST_RETRY_MILLIS << doublings);
  }

  @Override
  public CompletableFuture<Object> submit(String stateName, byte[] command) {
    String down = broken;
    if (down != null) {
      return CompletableFuture.failedFuture(
          new ReplicatorNotReadyException("the store cannot commit writes now: " + down));
    }
    Replicator started = started();
    if (started != null) {
      return started.submit(stateName, command);
    }
    if (starting.isCompletedExceptionally()) {
      return CompletableFuture.failedFuture(
          new ReplicatorNotReadyException("the store failed to start", failure()));
    }
    return starting.thenCompose(replicator -> replicator.submit(stateName, command));
  }

  @Override
  public boolean isReady() {
    Replicator started = started();
    return broken == null && started != null && started.isReady();
  }

  @Override
  public CompletableFuture<Void> readBarrier() {
    Replicator started = started();
    if (started != null) {
      return started.readBarrier();
    }
    if (standalone) {
      return NO_BARRIER;
    }
    return CompletableFuture.failedFuture(
        new ReplicatorNotReadyException("the store is starting", failure()));
  }

  @Override
  public CompletableFuture<Void> ready() {
    return starting.thenCompose(Replicator::ready);
  }

  /** Whether this node leads the replication group now (always, in standalone once started). */
  boolean isLeader() {
    Replicator started = started();
    return started instanceof RatisReplicator ratis ? ratis.isLeader() : isReady();
  }

  /** The replication group as this node sees it, once a Ratis store runs here. */
  Optional<GroupStatus> groupStatus() {
    return started() instanceof RatisReplicator ratis
        ? Optional.of(ratis.groupStatus())
        : Optional.empty();
  }

  /** Changes the group's membership (see {@link RatisReplicator#changeMembers}). */
  CompletableFuture<Void> changeMembers(List<ReplicationPeer> members) {
    return started() instanceof RatisReplicator ratis
        ? ratis.changeMembers(members)
        : CompletableFuture.failedFuture(new ReplicatorNotReadyException("the store is starting"));
  }

  /** Why the store could not start, or null. */
  Throwable failure() {
    if (!starting.isCompletedExceptionally()) {
      return null;
    }
    try {
      starting.join();
      return null;
    } catch (RuntimeException e) {
      return e.getCause() != null ? e.getCause() : e;
    }
  }

  private Replicator started() {
    return current;
  }

  @Override
  public void close() {
    closed = true;
    if (!startRequested) {
      // Never started (an earlier part of the server failed): nothing to close.
      starting.completeExceptionally(new ReplicatorNotReadyException("the server is closing"));
    }
    try {
      starting.join();
      Replicator replicator = current;
      if (replicator instanceof AutoCloseable closeable) {
        closeable.close();
      }
    } catch (Exception e) {
      log.debug("store was not running at close", e);
    }
  }
}
