package io.sluice.server.replication;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A follower's way to the leader: each batch goes through a Ratis client aimed at the leader this
 * node knows of, and a client that can no longer be trusted is retired for a new one.
 *
 * <p><b>Why clients are retired.</b> Ratis's ordered async client keeps one sliding window of
 * requests per group. Once any request in it fails for good (its retries ran out during an
 * election, or the answer cannot be retried), the window keeps that failure and fails every later
 * request at once with "… is closed" ({@code AlreadyClosedException}) for as long as the client
 * lives. Kept, such a client turned one failed write into a node that failed every forwarded write
 * until the leader changed again. So a client takes new batches only while
 *
 * <ol>
 *   <li>none of its requests has failed or gone unanswered past the timeout (a request the caller
 *       gave up on may still fail for good later, taking every request sent after it along), and
 *   <li>it was built for the leader this node knows of now (a client left aimed at a dead leader
 *       would spend its attempts there), or no leader is known;
 * </ol>
 *
 * otherwise the next batch gets a new client. A failure retires the client before the caller hears
 * of it, so a batch sent after a failure never shares its window. Batches already in flight beside
 * a request that fails for good do fail with it (at most the entries in flight).
 *
 * <p><b>A leader change retires the client at once.</b> When this node learns of a new leader
 * ({@link #leaderChanged}), the client built for the old one is retired without waiting for the
 * next batch, and each request in flight on it is told so (its {@code outdated} callback): the
 * request goes on (its resends keep their client and call ids, so the retry cache still answers
 * them), but the batch no longer holds one of the node's in-flight slots. Before, batches sent to a
 * leader that died held the slots until they were answered or timed out (up to the request
 * timeout), and every write behind them waited, on the new leader too.
 *
 * <p><b>Retired, not closed.</b> Closing a client fails what is in flight on it, and those batches
 * may well be committing: the client follows the leader's redirects, and the retry cache on every
 * peer makes a resend apply once. A retired client is closed when its last request completes, or by
 * {@link #close}. At most one client per request in flight is alive, plus the current one.
 *
 * <p>Concurrency: {@link #send} runs on the proposer thread, {@link #leaderChanged} on Ratis's
 * notification threads, completions on Ratis's client threads; choosing, counting and retiring
 * happen under this object's lock, outdated callbacks and closing a retired client (on the closer
 * executor) outside it.
 */
final class LeaderForwarding implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaderForwarding.class);

  /** Builds a client aimed at {@code leader} (null: none known; Ratis picks a peer). */
  interface ClientFactory {
    RaftClient build(RaftPeerId leader);
  }

  /** One client and what is known of it; fields guarded by the enclosing instance. */
  private static final class Generation {
    final RaftClient client;
    final RaftPeerId builtFor;
    int inFlight;
    boolean failed;
    boolean retired;

    /** The outdated callbacks of requests in flight, run once if a leader change retires it. */
    final Set<Runnable> outdated = new HashSet<>();

    Generation(RaftClient client, RaftPeerId builtFor) {
      this.client = client;
      this.builtFor = builtFor;
    }
  }

  private final ClientFactory factory;

  /**
   * Where retired clients are closed: closing waits for the client's channels to shut down (up to
   * seconds), which must not hold up the proposer or a Ratis thread.
   */
  private final Executor closer;

  /** The client new batches go through, or null before the first and after a retirement. */
  private Generation current;

  /** Retired clients with requests still in flight. */
  private final List<Generation> retired = new ArrayList<>();

  private boolean closed;

  LeaderForwarding(ClientFactory factory, Executor closer) {
    this.factory = factory;
    this.closer = closer;
  }

  /**
   * Sends {@code message} to the leader; the future completes with the leader's reply (the entry
   * committed) or fails, with the outcome unknown, when the client gives up or after {@code
   * timeoutMillis}. A failure has retired the client before the future fails, so a send made after
   * seeing it goes through a new client.
   *
   * @param outdated run at most once, on the thread that learns of it, if the leader changes while
   *     the request is in flight (its client retired; the request itself goes on); it may race with
   *     the future's completion, so it must be harmless after it. Cheap, never blocking.
   */
  CompletableFuture<RaftClientReply> send(
      Message message, RaftPeerId knownLeader, long timeoutMillis, Runnable outdated) {
    Generation generation;
    RaftClient toClose = null;
    List<Runnable> toNotify = List.of();
    synchronized (this) {
      if (closed) {
        return CompletableFuture.failedFuture(
            new ReplicatorClosedException("replicator is closed"));
      }
      if (current == null
          || current.failed
          || (knownLeader != null && !knownLeader.equals(current.builtFor))) {
        if (current != null && !current.failed) {
          toNotify = List.copyOf(current.outdated);
          current.outdated.clear();
        }
        toClose = retire(current);
        RaftClient client;
        try {
          client = factory.build(knownLeader);
        } catch (RuntimeException e) {
          current = null;
          closeQuietly(toClose);
          toNotify.forEach(Runnable::run);
          return CompletableFuture.failedFuture(e);
        }
        current = new Generation(client, knownLeader);
      }
      generation = current;
      generation.inFlight++;
      generation.outdated.add(outdated);
    }
    closeQuietly(toClose);
    toNotify.forEach(Runnable::run);
    CompletableFuture<RaftClientReply> reply;
    try {
      reply = generation.client.async().send(message);
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    // The request itself may go on after the answer timed out (the client still retries): the
    // client is closed only after its last request ends.
    reply.whenComplete((answer, failure) -> ended(generation, failure != null));
    return reply
        .copy()
        .orTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
        .whenComplete(
            (answer, failure) -> {
              answered(generation, outdated);
              if (failure != null) {
                failed(generation);
              }
            });
  }

  /**
   * This node learnt of {@code leader} (itself included): the client built for another leader is
   * retired now, and the requests in flight on it are told they are outdated. Called on Ratis's
   * notification threads; never blocks.
   */
  void leaderChanged(RaftPeerId leader) {
    if (leader == null) {
      return; // an election under way: keep trying whatever the client knows
    }
    RaftClient toClose;
    List<Runnable> toNotify;
    synchronized (this) {
      if (closed || current == null || leader.equals(current.builtFor)) {
        return;
      }
      toNotify = List.copyOf(current.outdated);
      current.outdated.clear();
      toClose = retire(current);
      current = null;
    }
    closeQuietly(toClose);
    toNotify.forEach(Runnable::run);
  }

  /** The caller has its answer: the request's outdated callback must no longer run. */
  private synchronized void answered(Generation generation, Runnable outdated) {
    generation.outdated.remove(outdated);
  }

  /** Closes every client; what is in flight fails. Later sends fail at once. */
  @Override
  public void close() {
    List<RaftClient> toClose = new ArrayList<>();
    synchronized (this) {
      closed = true;
      if (current != null) {
        toClose.add(current.client);
        current = null;
      }
      for (Generation generation : retired) {
        toClose.add(generation.client);
      }
      retired.clear();
    }
    toClose.forEach(LeaderForwarding::closeNow);
  }

  /** A request of {@code generation} ended (answered, or given up by the client). */
  private void ended(Generation generation, boolean failed) {
    RaftClient toClose = null;
    synchronized (this) {
      generation.inFlight--;
      if (failed) {
        toClose = retireFailed(generation);
      }
      if (generation.retired && generation.inFlight == 0 && retired.remove(generation)) {
        toClose = generation.client;
      }
    }
    closeQuietly(toClose);
  }

  /** A request of {@code generation} failed or timed out: no new request goes through it. */
  private void failed(Generation generation) {
    RaftClient toClose;
    synchronized (this) {
      toClose = retireFailed(generation);
    }
    closeQuietly(toClose);
  }

  private RaftClient retireFailed(Generation generation) {
    if (generation.failed) {
      return null;
    }
    generation.failed = true;
    if (generation != current) {
      return null; // retired already (a leader change), or closed
    }
    current = null;
    return retire(generation);
  }

  /**
   * Takes {@code generation} out of use; returns its client when nothing is in flight on it (the
   * caller closes it outside the lock), else keeps it until its last request completes.
   */
  private RaftClient retire(Generation generation) {
    if (generation == null || generation.retired) {
      return null;
    }
    generation.retired = true;
    if (generation.inFlight == 0) {
      return generation.client;
    }
    retired.add(generation);
    return null;
  }

  private void closeQuietly(RaftClient client) {
    if (client == null) {
      return;
    }
    try {
      closer.execute(() -> closeNow(client));
    } catch (RejectedExecutionException e) {
      closeNow(client); // the replicator is closing
    }
  }

  private static void closeNow(RaftClient client) {
    try {
      client.close();
    } catch (IOException | RuntimeException e) {
      log.debug("closing a forwarding client failed", e);
    }
  }
}
