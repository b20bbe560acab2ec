package io.sluice.server.naming;

import io.sluice.server.feature.ReplicatedWrites;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a cluster's replicated copy of ephemeral instances ({@link EphemeralStore}) in step with
 * what this node's owners publish, and removes what dead nodes owned.
 *
 * <ul>
 *   <li>A local change (register, deregister, a connection closing, a beat client expiring) marks
 *       its (owner, service) dirty; a flush publishes the owner's current list for each dirty key
 *       through the log, at most one submission per key in flight, so a burst of changes to one key
 *       costs one write. A failed write (no leader, overloaded) is retried.
 *   <li>Every {@link #RECONCILE_MILLIS} the replicated copy of this incarnation is compared with
 *       the registry and whatever differs is published again: this repairs a write whose outcome
 *       was unknown, a reordering after a leader change, and this node's instances having been
 *       dropped while it was cut off. Earlier incarnations of this node are dropped.
 *   <li>Other nodes list a publication as soon as its batch is in their log (see {@link
 *       EphemeralStore}'s previews); reconciliation also withdraws previews whose batch never
 *       committed.
 *   <li>On the leader, every incarnation of a node that has not answered for the owner timeout (or
 *       is no longer a member) is dropped, so what a dead node owned disappears everywhere within
 *       the owner timeout plus an election.
 * </ul>
 *
 * <p>Concurrency: {@link #dirty} and {@link #inFlight} are concurrent sets; flushes and
 * reconciliation run on the scheduler's thread; write completions on the replicator's.
 */
final class EphemeralSync implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EphemeralSync.class);

  /**
   * How often the replicated copy is compared with the registry, and the leader looks for dead
   * nodes.
   */
  static final long RECONCILE_MILLIS = 2_000;

  /** Pause before retrying writes that failed (no leader, overloaded). */
  static final long RETRY_MILLIS = 200;

  /** Publications in flight at most; the rest wait in the dirty set. */
  static final int MAX_IN_FLIGHT = 4_096;

  /**
   * Publications one flush submits at most; the next flush is queued behind the scheduler's other
   * work for the rest.
   */
  static final int MAX_PER_FLUSH = 1_024;

  private record Key(String owner, ServiceKey service) {}

  private final ServiceRegistry registry;
  private final EphemeralStore store;
  private final ReplicatedWrites writes;
  private final ScheduledExecutorService scheduler;
  private final NamingFeature.Membership membership;
  private final String selfNode;
  private final String incarnation;
  private final long ownerTimeoutMillis;

  private final Set<Key> dirty = ConcurrentHashMap.newKeySet();
  private final Set<Key> inFlight = ConcurrentHashMap.newKeySet();
  private final Set<String> dropsInFlight = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean flushScheduled = new AtomicBoolean();
  private volatile ScheduledFuture<?> reconciling;
  private volatile boolean closed;

  EphemeralSync(
      ServiceRegistry registry,
      EphemeralStore store,
      ReplicatedWrites writes,
      ScheduledExecutorService scheduler,
      NamingFeature.Membership membership,
      String selfNode,
      String incarnation,
      long ownerTimeoutMillis) {
    this.registry = registry;
    this.store = store;
    this.writes = writes;
    this.scheduler = scheduler;
    this.membership = membership;
    this.selfNode = selfNode;
    this.incarnation = incarnation;
    this.ownerTimeoutMillis = ownerTimeoutMillis;
    registry.onLocalOwnerChange(this::onLocalChange);
  }

  void start() {
    reconciling =
        scheduler.scheduleWithFixedDelay(
            this::reconcileSafely, RECONCILE_MILLIS, RECONCILE_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void onLocalChange(String owner, ServiceKey service) {
    dirty.add(new Key(owner, service));
    scheduleFlush(0);
  }

  private void scheduleFlush(long delayMillis) {
    if (closed || !flushScheduled.compareAndSet(false, true)) {
      return;
    }
    try {
      scheduler.schedule(this::flush, delayMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      flushScheduled.set(false);
    }
  }

  /**
   * Submits up to {@value #MAX_PER_FLUSH} dirty keys, walking the live set (a copy of it would cost
   * the whole set on every flush, and a flush runs after each completed batch). The walk is capped
   * so it always ends: a submission that fails at once puts its key back into the set being walked,
   * where the walk may meet it again, and its retry waits {@value #RETRY_MILLIS} ms; an uncapped
   * walk kept the scheduler spinning while the store was down.
   */
  private void flush() {
    flushScheduled.set(false);
    int submitted = 0;
    for (Iterator<Key> walk = dirty.iterator(); walk.hasNext(); ) {
      if (closed || inFlight.size() >= MAX_IN_FLIGHT) {
        return; // each completion flushes again
      }
      if (submitted == MAX_PER_FLUSH) {
        scheduleFlush(0); // the rest after the scheduler's other work (unless a retry waits)
        return;
      }
      Key key = walk.next();
      if (inFlight.contains(key) || !dirty.remove(key)) {
        continue; // published when the one in flight completes
      }
      submitted++;
      publish(key);
    }
  }

  private void publish(Key key) {
    inFlight.add(key);
    List<Instance> instances = registry.publishedBy(key.owner(), key.service());
    writes
        .submit(
            EphemeralStore.NAME,
            EphemeralStore.publish(selfNode, incarnation, key.owner(), key.service(), instances),
            NamingOutcome.class,
            NamingException::new)
        .whenComplete(
            (applied, failure) -> {
              inFlight.remove(key);
              if (failure != null) {
                dirty.add(key);
                scheduleFlush(RETRY_MILLIS);
              } else if (!dirty.isEmpty()) {
                scheduleFlush(0);
              }
            });
  }

  private void reconcileSafely() {
    try {
      reconcile();
    } catch (RuntimeException e) {
      log.warn("reconciling ephemeral instances failed; retrying in {} ms", RECONCILE_MILLIS, e);
    }
  }

  /** Marks what differs between the registry and the replicated copy; drops what must go. */
  void reconcile() {
    store.withdrawExpiredPreviews();
    Map<EphemeralStore.Entry, List<Instance>> replicated = store.entries();
    Set<String> otherIncarnationsOfSelf = new HashSet<>();
    Set<String> nodesWithEntries = new HashSet<>();
    for (Map.Entry<EphemeralStore.Entry, List<Instance>> e : replicated.entrySet()) {
      EphemeralStore.Entry entry = e.getKey();
      nodesWithEntries.add(entry.node());
      if (store.isSelf(entry)) {
        if (!Objects.equals(registry.publishedBy(entry.owner(), entry.service()), e.getValue())) {
          dirty.add(new Key(entry.owner(), entry.service()));
        }
      } else if (entry.node().equals(selfNode)) {
        otherIncarnationsOfSelf.add(entry.incarnation());
      }
    }
    for (Map.Entry<String, Set<ServiceKey>> owned : registry.ownerships().entrySet()) {
      String owner = owned.getKey();
      if (ServiceRegistry.isRemoteOwner(owner)) {
        continue;
      }
      for (ServiceKey service : owned.getValue()) {
        List<Instance> local = registry.publishedBy(owner, service);
        List<Instance> copy =
            replicated.get(new EphemeralStore.Entry(selfNode, incarnation, owner, service));
        if (!local.equals(copy == null ? List.of() : copy)) {
          dirty.add(new Key(owner, service));
        }
      }
    }
    if (!otherIncarnationsOfSelf.isEmpty()) {
      drop(selfNode, incarnation, "earlier incarnations of this node " + otherIncarnationsOfSelf);
    }
    if (membership.isLeader()) {
      Set<String> members = membership.members();
      Map<String, Long> silent = membership.silentMillis();
      for (String node : nodesWithEntries) {
        if (node.equals(selfNode)) {
          continue;
        }
        Long silence = silent.get(node);
        if (!members.contains(node)) {
          drop(node, "", "no longer a member");
        } else if (silence != null && silence >= ownerTimeoutMillis) {
          drop(node, "", "silent for " + silence + " ms");
        }
      }
    }
    if (!dirty.isEmpty()) {
      scheduleFlush(0);
    }
  }

  private void drop(String node, String keep, String why) {
    if (!dropsInFlight.add(node)) {
      return;
    }
    log.info("dropping the ephemeral instances of node {}: {}", node, why);
    writes
        .submit(
            EphemeralStore.NAME,
            EphemeralStore.drop(node, keep),
            NamingOutcome.class,
            NamingException::new)
        .whenComplete((applied, failure) -> dropsInFlight.remove(node));
  }

  @Override
  public void close() {
    closed = true;
    ScheduledFuture<?> task = reconciling;
    if (task != null) {
      task.cancel(false);
    }
  }
}
