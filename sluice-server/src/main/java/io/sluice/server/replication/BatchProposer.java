package io.sluice.server.replication;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit: gathers concurrent submissions into one Raft entry each, keeps a few entries in
 * flight, and hands every command's outcome back to its submitter once the entry is applied.
 *
 * <p>No timer and no linger: a submission to an idle replicator goes out at once, alone. Under
 * load, the entries in flight are being fsynced while new submissions queue up, and the next entry
 * takes all of them (up to the batch limits), so batches grow with the load by themselves.
 *
 * <p>Concurrency: {@link #submit} runs on any thread and only enqueues. At most one drain task is
 * queued or running on the proposer executor at a time ({@link #drainScheduled}), so {@link #queue}
 * has a single consumer and batches leave in submission order. {@link #onApplied} runs on the apply
 * thread and only moves a batch to the completion executor. Ratis's reply callbacks run on Ratis
 * threads and only release the in-flight slot or fail a batch.
 *
 * <p>Bounds: {@link #pendingSubmissions} and {@link #pendingBytes} count every submission from
 * acceptance until its future is completed (queued, in the log, or waiting on the completion
 * executor), so this class never holds more than the configured limits; beyond them {@link #submit}
 * fails fast with {@link ReplicatorOverloadedException}. The completion executor's queue is bounded
 * by the same count, since it holds one task per batch of pending submissions. At most {@code
 * maxEntriesInFlight} entries hold a slot; a follower's forwarded entry gives its slot up when the
 * leader changes under it ({@link #releaseSlot}), so entries on their way can exceed that by the
 * ones sent to a former leader (at most {@code maxEntriesInFlight} per leader change, each ending
 * within the request timeout), all of them within the pending bounds.
 */
final class BatchProposer {
  private static final Logger log = LoggerFactory.getLogger(BatchProposer.class);

  /** Where batches go: Ratis on the leader. Completes when the entry is applied, or fails. */
  interface EntrySink {
    CompletableFuture<?> propose(long sequence, byte[] entry);
  }

  private final long proposerId;
  private final int maxBatchCommands;
  private final int maxBatchBytes;
  private final int maxEntriesInFlight;
  private final int maxPendingSubmissions;
  private final long maxPendingBytes;
  private final Executor proposerExecutor;
  private final Executor completionExecutor;
  private final EntrySink sink;
  private final Function<Throwable, ReplicationException> failureTranslator;

  private final ConcurrentLinkedQueue<Submission> queue = new ConcurrentLinkedQueue<>();

  /**
   * The queue has two consumers, the drain and close(); this lock makes the drain's peek-then-poll
   * atomic against close(). Producers never take it.
   */
  private final Object consumerLock = new Object();

  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final AtomicInteger entriesInFlight = new AtomicInteger();
  private final AtomicInteger pendingSubmissions = new AtomicInteger();
  private final AtomicLong pendingBytes = new AtomicLong();

  /** Proposed batches by sequence; removed by whichever of apply and failure comes first. */
  private final Map<Long, List<Submission>> inFlight = new ConcurrentHashMap<>();

  /**
   * Sequences of the proposed entries that count toward {@link #entriesInFlight}: an entry leaves
   * when its reply completes or when its slot is {@linkplain #releaseSlot released} (whichever
   * comes first), so the counter is decremented once per entry.
   */
  private final Set<Long> holdingSlots = ConcurrentHashMap.newKeySet();

  private final AtomicLong nextSequence = new AtomicLong(1);
  private final AtomicLong entriesProposed = new AtomicLong();
  private final AtomicLong commandsProposed = new AtomicLong();

  /** Set when the replicator stops taking submissions; queued ones still go out. */
  private volatile ReplicationException refusingBecause;

  /** Set when nothing more may go out; everything still pending is failed. */
  private volatile ReplicationException closedBecause;

  /** Completes once no submission is pending after {@link #stopAccepting}. */
  private final CompletableFuture<Void> idle = new CompletableFuture<>();

  BatchProposer(
      long proposerId,
      ReplicationOptions options,
      Executor proposerExecutor,
      Executor completionExecutor,
      EntrySink sink,
      Function<Throwable, ReplicationException> failureTranslator) {
    this.proposerId = proposerId;
    this.maxBatchCommands = options.maxBatchCommands();
    this.maxBatchBytes = options.maxBatchBytes();
    this.maxEntriesInFlight = options.maxEntriesInFlight();
    this.maxPendingSubmissions = options.maxPendingSubmissions();
    this.maxPendingBytes = options.maxPendingBytes();
    this.proposerExecutor = proposerExecutor;
    this.completionExecutor = completionExecutor;
    this.sink = sink;
    this.failureTranslator = failureTranslator;
  }

  long proposerId() {
    return proposerId;
  }

  /** Accepts a command for replication, or fails it at once when over the bounds. */
  CompletableFuture<Object> submit(byte[] stateName, byte[] command) {
    CompletableFuture<Object> future = new CompletableFuture<>();
    ReplicationException refused = refusingBecause;
    if (refused != null) {
      future.completeExceptionally(refused);
      return future;
    }
    if (pendingSubmissions.incrementAndGet() > maxPendingSubmissions) {
      pendingSubmissions.decrementAndGet();
      future.completeExceptionally(
          new ReplicatorOverloadedException(
              "replicator overloaded: "
                  + maxPendingSubmissions
                  + " submissions already pending; retry later"));
      return future;
    }
    if (pendingBytes.addAndGet(command.length) > maxPendingBytes) {
      release(command.length);
      future.completeExceptionally(
          new ReplicatorOverloadedException(
              "replicator overloaded: "
                  + maxPendingBytes
                  + " bytes of commands already pending; retry later"));
      return future;
    }
    queue.add(new Submission(stateName, command, future));
    if (closedBecause != null) {
      // close() may have swept the queue before this submission landed in it.
      failQueued(closedBecause);
      return future;
    }
    scheduleDrain();
    return future;
  }

  /**
   * Called on the apply thread for every applied batch; completes the local submitters' futures on
   * the completion executor. Batches of other proposers (other peers, earlier runs) are ignored.
   */
  void onApplied(long batchProposerId, long sequence, Object[] outcomes) {
    if (batchProposerId != proposerId) {
      return;
    }
    List<Submission> batch = inFlight.remove(sequence);
    if (batch == null) {
      return; // failed already (e.g. the reply timed out) and was reported to the submitters
    }
    complete(() -> completeBatch(batch, outcomes));
  }

  /**
   * Refuses new submissions from now on and returns a future that completes once every accepted one
   * has been completed (applied, or failed).
   */
  CompletableFuture<Void> stopAccepting(ReplicationException because) {
    refusingBecause = because;
    if (pendingSubmissions.get() == 0) {
      idle.complete(null);
    }
    return idle;
  }

  /** Fails everything queued or in flight; later submissions fail at once. */
  void close(ReplicationException because) {
    refusingBecause = because;
    closedBecause = because;
    failQueued(because);
    for (Long sequence : List.copyOf(inFlight.keySet())) {
      List<Submission> batch = inFlight.remove(sequence);
      if (batch != null) {
        failBatch(batch, because);
      }
    }
  }

  /**
   * Entry {@code sequence} is still on its way but no longer holds one of the {@code
   * maxEntriesInFlight} slots, so the next batch may go: a follower's forwarded entry whose leader
   * changed while it was in flight (see {@link LeaderForwarding}). Its submissions stay pending
   * (counted against the pending bounds) until it is applied or fails. No-op once the entry has
   * completed or was released before.
   */
  void releaseSlot(long sequence) {
    if (holdingSlots.remove(sequence)) {
      entriesInFlight.decrementAndGet();
      scheduleDrain();
    }
  }

  long entriesProposed() {
    return entriesProposed.get();
  }

  long commandsProposed() {
    return commandsProposed.get();
  }

  int pendingSubmissions() {
    return pendingSubmissions.get();
  }

  private void scheduleDrain() {
    if (!queue.isEmpty()
        && entriesInFlight.get() < maxEntriesInFlight
        && drainScheduled.compareAndSet(false, true)) {
      try {
        proposerExecutor.execute(this::drain);
      } catch (RejectedExecutionException e) {
        drainScheduled.set(false);
        failQueued(new ReplicatorClosedException("replicator is closed"));
      }
    }
  }

  private void drain() {
    try {
      while (closedBecause == null
          && entriesInFlight.get() < maxEntriesInFlight
          && !queue.isEmpty()) {
        List<Submission> batch = takeBatch();
        if (!batch.isEmpty()) {
          entriesInFlight.incrementAndGet();
          propose(batch);
        }
      }
    } finally {
      drainScheduled.set(false);
    }
    // A submission or a freed slot may have arrived after the loop looked and before the flag
    // was cleared; whoever saw the flag still set relied on this drain to pick it up.
    scheduleDrain();
  }

  private List<Submission> takeBatch() {
    List<Submission> batch = new ArrayList<>(Math.min(maxBatchCommands, 64));
    int bytes = CommandBatch.HEADER_BYTES;
    synchronized (consumerLock) {
      for (Submission next; batch.size() < maxBatchCommands && (next = queue.peek()) != null; ) {
        int frame = CommandBatch.frameBytes(next.stateName(), next.command().length);
        // The first command always goes, even when larger than a batch: it travels alone.
        if (!batch.isEmpty() && bytes + frame > maxBatchBytes) {
          break;
        }
        queue.poll();
        batch.add(next);
        bytes += frame;
      }
    }
    return batch;
  }

  private void propose(List<Submission> batch) {
    long sequence = nextSequence.getAndIncrement();
    byte[] entry = CommandBatch.encode(proposerId, sequence, batch);
    entriesProposed.incrementAndGet();
    commandsProposed.addAndGet(batch.size());
    // Registered before proposing: the entry may be applied before propose() even returns.
    inFlight.put(sequence, batch);
    holdingSlots.add(sequence);
    CompletableFuture<?> reply;
    try {
      reply = sink.propose(sequence, entry);
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    reply.whenComplete(
        (ignored, failure) -> {
          if (holdingSlots.remove(sequence)) {
            entriesInFlight.decrementAndGet();
          }
          List<Submission> unapplied = inFlight.remove(sequence);
          if (unapplied != null) {
            ReplicationException reason =
                failure != null
                    ? failureTranslator.apply(failure)
                    : new ReplicationException(
                        "Ratis acknowledged entry "
                            + sequence
                            + " but it was never applied here; outcome unknown");
            failBatch(unapplied, reason);
          }
          scheduleDrain();
        });
  }

  private void completeBatch(List<Submission> batch, Object[] outcomes) {
    for (int i = 0; i < batch.size(); i++) {
      Submission submission = batch.get(i);
      release(submission.command().length);
      Object outcome = i < outcomes.length ? outcomes[i] : null;
      if (outcome instanceof ApplyFailure failure) {
        submission.future().completeExceptionally(failure.exception());
      } else {
        submission.future().complete(outcome);
      }
    }
  }

  private void failBatch(List<Submission> batch, ReplicationException reason) {
    complete(
        () -> {
          for (Submission submission : batch) {
            release(submission.command().length);
            submission.future().completeExceptionally(reason);
          }
        });
  }

  private void failQueued(ReplicationException reason) {
    List<Submission> failed = new ArrayList<>();
    synchronized (consumerLock) {
      for (Submission next; (next = queue.poll()) != null; ) {
        failed.add(next);
      }
    }
    if (!failed.isEmpty()) {
      failBatch(failed, reason);
    }
  }

  private void complete(Runnable completion) {
    try {
      completionExecutor.execute(completion);
    } catch (RejectedExecutionException e) {
      // The executor is shut down (closing): complete here rather than leave futures hanging.
      log.debug("completion executor refused a task; completing inline", e);
      completion.run();
    }
  }

  private void release(int commandBytes) {
    pendingBytes.addAndGet(-commandBytes);
    if (pendingSubmissions.decrementAndGet() == 0 && refusingBecause != null) {
      idle.complete(null);
    }
  }
}
