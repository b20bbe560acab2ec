package io.sluice.server.feature;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.metrics.Histogram;
import io.sluice.server.replication.CommandTooLargeException;
import io.sluice.server.replication.ReplicationException;
import io.sluice.server.replication.Replicator;
import io.sluice.server.replication.ReplicatorClosedException;
import io.sluice.server.replication.ReplicatorNotReadyException;
import io.sluice.server.replication.ReplicatorOverloadedException;
import io.sluice.server.replication.StateApplyException;
import java.util.concurrent.CompletableFuture;

/**
 * The one way a feature writes its replicated state: a command goes into the replicated log and the
 * future completes with the state's typed outcome once the command is committed and applied on this
 * node (so the writer's next read here sees it). Every feature's door sends its writes through here
 * and nowhere else; in a cluster the replicator behind it forwards a follower's writes to the
 * leader, and {@link #readBarrier} makes a read on any node linearizable.
 *
 * <p>Failures of replication become the feature's own exception with a {@link Fault}: a command
 * above the size limit is {@link Fault#TOO_LARGE}, a full queue {@link Fault#OVERLOADED}, a store
 * that is starting, not the leader, closing or lost track of the outcome {@link Fault#UNAVAILABLE},
 * a state that threw while applying {@link Fault#INTERNAL}; an outcome by which apply refused the
 * command (a {@link Refusal}) fails with the refusal's fault. Nobody above the features sees
 * replication's exceptions or a refusal as an outcome.
 */
public final class ReplicatedWrites {
  private final Replicator replicator;
  private final WriteGate gate;
  private final ServerClock clock;

  /** From submission until committed and applied here (or failed), for the server's metrics. */
  private final Histogram commits = new Histogram();

  /** Why the last write failed in the store itself (not a refusal), or null once one succeeds. */
  private volatile String lastStoreFailure;

  public ReplicatedWrites(Replicator replicator) {
    this(replicator, WriteGate.OPEN, ServerClock.SYSTEM);
  }

  /**
   * @param gate asked before every write; a refusal fails the write {@link Fault#UNAVAILABLE} with
   *     its reason, and nothing is written
   */
  public ReplicatedWrites(Replicator replicator, WriteGate gate, ServerClock clock) {
    this.replicator = replicator;
    this.gate = gate;
    this.clock = clock;
  }

  /** How long writes took from submission until committed and applied on this node, or failed. */
  public Histogram commitDurations() {
    return commits;
  }

  /**
   * Why the store could not commit the last write it was given (a log that failed on its disk), or
   * null when the last write went through: readiness reports it.
   */
  public String lastStoreFailure() {
    return lastStoreFailure;
  }

  /**
   * Submits {@code command} to the state named {@code state}; never throws.
   *
   * @param outcomes the sealed outcome type the state's apply returns
   * @param failures makes the feature's exception for a fault
   */
  public <T> CompletableFuture<T> submit(
      String state, byte[] command, Class<T> outcomes, FeatureException.Factory failures) {
    String closed = gate.refusal();
    if (closed != null) {
      return CompletableFuture.failedFuture(failures.create(Fault.UNAVAILABLE, closed, null));
    }
    long start = clock.nanoTime();
    return replicator
        .submit(state, command)
        .handle(
            (outcome, failure) -> {
              commits.record(clock.nanoTime() - start);
              if (failure != null) {
                Fault fault = faultOf(failure);
                if (isStoreFailure(failure)) {
                  lastStoreFailure = messageOf(failure);
                }
                throw failures.create(fault, messageOf(failure), failure);
              }
              lastStoreFailure = null;
              if (!outcomes.isInstance(outcome)) {
                throw failures.create(
                    Fault.INTERNAL,
                    "state '" + state + "' answered " + outcome + ", not a " + outcomes.getName(),
                    null);
              }
              if (outcome instanceof Refusal refused) {
                throw failures.create(refused.fault(), refused.reason(), null);
              }
              return outcomes.cast(outcome);
            });
  }

  /**
   * Completes once this node holds every write acknowledged anywhere before the call, so a read of
   * the state after it is linearizable: at once in standalone; a ReadIndex round in a cluster.
   * Fails with the feature's exception ({@link Fault#UNAVAILABLE}) on a node that cannot reach the
   * majority, rather than let it serve stale data.
   */
  public CompletableFuture<Void> readBarrier(FeatureException.Factory failures) {
    CompletableFuture<Void> barrier = replicator.readBarrier();
    if (barrier == Replicator.NO_BARRIER) {
      return barrier;
    }
    return barrier.handle(
        (ignored, failure) -> {
          if (failure != null) {
            throw failures.create(faultOf(failure), messageOf(failure), failure);
          }
          return null;
        });
  }

  /** Whether the store takes writes now (log replayed, this node leads). */
  public boolean isReady() {
    return replicator.isReady();
  }

  /** A failure of the store itself, as opposed to a refusal by design (size, queue, not ready). */
  private static boolean isStoreFailure(Throwable failure) {
    Throwable cause = FeatureException.unwrap(failure);
    return cause instanceof ReplicationException
        && !(cause instanceof CommandTooLargeException
            || cause instanceof ReplicatorOverloadedException
            || cause instanceof ReplicatorNotReadyException
            || cause instanceof ReplicatorClosedException);
  }

  static Fault faultOf(Throwable failure) {
    Throwable cause = FeatureException.unwrap(failure);
    if (cause instanceof CommandTooLargeException) {
      return Fault.TOO_LARGE;
    }
    if (cause instanceof ReplicatorOverloadedException) {
      return Fault.OVERLOADED;
    }
    if (cause instanceof ReplicatorNotReadyException
        || cause instanceof ReplicatorClosedException) {
      return Fault.UNAVAILABLE;
    }
    if (cause instanceof StateApplyException) {
      return Fault.INTERNAL;
    }
    if (cause instanceof ReplicationException) {
      // "Replication failed; outcome unknown": the client may retry, as after a lost answer.
      return Fault.UNAVAILABLE;
    }
    return Fault.INTERNAL;
  }

  private static String messageOf(Throwable failure) {
    Throwable cause = FeatureException.unwrap(failure);
    return String.valueOf(cause.getMessage());
  }
}
