package io.sluice.server.replication;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.ServerNotReadyException;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replication and durable store of sluice-server: a Raft group on Apache Ratis (one peer in
 * standalone, three or more in a cluster), with our own group commit, command routing to {@link
 * ReplicatedState}s and checksummed snapshots.
 *
 * <pre>{@code
 * RatisReplicator replicator =
 *     RatisReplicator.start(ReplicationOptions.builder(dataDir.resolve("ratis")).build(),
 *         List.of(configStore, namespaces));
 * replicator.ready().get(5, TimeUnit.SECONDS);
 * Object outcome = replicator.submit("config", command).join();  // durable and applied
 * }</pre>
 *
 * <p><b>Write path.</b> {@link #submit} enqueues the command in a bounded queue ({@link
 * BatchProposer}); the proposer thread packs queued commands into one Raft entry and hands it to
 * the Ratis server in-process ({@code submitClientRequestAsync}, no client hop), keeping up to
 * {@code maxEntriesInFlight} entries in flight. Ratis appends the entry to the log, fsyncs it (on a
 * majority, in a cluster), commits it, and its apply thread calls our state machine, which applies
 * each command to its state in log order and hands the outcomes back to the proposer by batch
 * sequence number. Outcomes exist only on the node that proposed the batch.
 *
 * <p><b>Threads.</b> Submitters never block. Futures are completed on the completion executor
 * (default: one thread owned by the replicator), one task per batch, never on Ratis's apply thread,
 * so a slow continuation cannot stall replication; it can delay other completions, so heavy
 * continuations belong on their own executor ({@code thenApplyAsync(f, executor)}). {@link
 * #ready()} completes there too.
 *
 * <p><b>Durability.</b> A completed future means the entry is on disk: Ratis's log is forced
 * (fdatasync) before the entry counts as flushed, and only flushed entries commit. What is turned
 * off and why is in {@link RatisProperties}. Snapshots are written with temp file, fsync, atomic
 * rename and directory fsync ({@link SnapshotFile}).
 *
 * <p><b>Cluster.</b> Several peers form one group. Any peer takes writes: the leader proposes its
 * batches in-process; a follower batches the same way and forwards each batch to the leader through
 * a Ratis client (which follows a leader change and resends; the retry cache, filled on every peer
 * as it applies, keeps a resend from being applied twice), replaced after a leader change or a
 * failed request ({@link LeaderForwarding} says why). The batch carries the follower's proposer id,
 * so the outcomes are handed back when the follower itself applies the entry: a write is
 * acknowledged after commit and apply on the node that answers. A follower that cannot reach a
 * leader within {@code requestTimeout} fails the write with {@link ReplicatorNotReadyException}
 * (outcome unknown: the leader may still commit it). {@link #readBarrier()} is Ratis's ReadIndex,
 * for linearizable reads on any peer.
 *
 * <p><b>Failure.</b> Ratis does not recover from a failed write of its log (a full disk, an I/O
 * error) or from one of its threads dying (an {@link OutOfMemoryError}): the group member stops or
 * stops committing for good. {@link #failure()} says when that happened and why; {@link #restart}
 * then replaces the engine in-process from durable state, keeping the states as applied.
 */
public final class RatisReplicator implements Replicator, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RatisReplicator.class);

  /** How long {@link #close()} waits for accepted submissions to finish before failing them. */
  public static final Duration CLOSE_DRAIN_TIMEOUT = Duration.ofSeconds(5);

  /** How long closing Ratis may take before the deadlock work-around steps in (see stopRatis). */
  private static final Duration RATIS_STOP_PATIENCE = Duration.ofSeconds(10);

  private static final int RATIS_STOP_ATTEMPTS = 3;

  /** How long {@link #takeSnapshot()} may take before its future fails. */
  private static final Duration SNAPSHOT_REQUEST_TIMEOUT = Duration.ofMinutes(1);

  private final ReplicationOptions options;
  private final RaftGroupId groupId;
  private final RaftPeerId selfId;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong nextAdminCallId = new AtomicLong(Long.MAX_VALUE / 2);
  private final Map<String, byte[]> stateNames;
  private final List<ReplicatedState> states;
  private final ReplicationStateMachine stateMachine;
  private final EngineThreadGroup engineThreads;
  private final BatchProposer proposer;
  private final Executor completionExecutor;
  private final List<ExecutorService> ownedExecutors;
  private final CompletableFuture<Void> firstReady = new CompletableFuture<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  /** True while this node leads and has applied the whole log; written by Ratis threads. */
  private volatile boolean leaderReady;

  /** This node's member of the group, once started: what it knows of roles and the leader. */
  private volatile RaftServer.Division division;

  /** A follower's way to the leader (see {@link LeaderForwarding}); closed with the replicator. */
  private final LeaderForwarding forwarding;

  /** One line per interval for the forwarding clients' failed attempts (all leaders' clients). */
  private final ForwardingFailureLog forwardingFailures = new ForwardingFailureLog();

  private final ReadBarriers readBarriers;

  /**
   * In a cluster, where read barriers start from; Ratis's submit blocks its caller, so a barrier
   * may not start on an event loop or a Ratis thread.
   */
  private final Executor clusterExecutor;

  /** Set while a membership change this node asked for is under way (one at a time). */
  private final AtomicBoolean membershipChanging = new AtomicBoolean();

  private volatile RaftServer server;

  /** Why the engine stopped committing, once known; never cleared. */
  private volatile String failure;

  /** False when closing Ratis did not finish: its storage may still be in use. */
  private volatile boolean ratisStopped = true;

  /**
   * Whether the Ratis server is fully closed (its apply thread, log and storage): checked again
   * each time, since a close that outlasted {@link #stopRatis}'s patience may finish later.
   */
  private boolean ratisStopped() {
    RaftServer raft = server;
    if (!ratisStopped && raft != null && fullyClosed(raft, division)) {
      ratisStopped = true;
    }
    return ratisStopped;
  }

  /**
   * Whether the server and its group member have finished closing: the member's close stops its
   * apply thread (which writes a snapshot on stop) and releases the storage directory, and may
   * still run after the server's own close returned.
   */
  private static boolean fullyClosed(RaftServer raft, RaftServer.Division member) {
    if (raft.getLifeCycleState() != LifeCycle.State.CLOSED) {
      return false;
    }
    if (member == null) {
      return true;
    }
    LifeCycle.State state = member.getInfo().getLifeCycleState();
    return state == LifeCycle.State.CLOSED || state == LifeCycle.State.NEW;
  }

  private RatisReplicator(
      ReplicationOptions options, List<ReplicatedState> states, SnapshotFile.Position statesHold) {
    this.options = options;
    this.states = states;
    this.groupId = groupIdFor(options.groupName());
    this.selfId = RaftPeerId.valueOf(options.self().id());
    this.engineThreads = new EngineThreadGroup("sluice-ratis-" + selfId);
    this.stateNames = new HashMap<>();
    for (ReplicatedState state : states) {
      stateNames.put(state.name(), state.name().getBytes(StandardCharsets.UTF_8));
    }
    List<ExecutorService> owned = new ArrayList<>();
    Executor proposerExecutor =
        options.proposerExecutor().orElseGet(() -> own(owned, "sluice-replication-proposer"));
    this.completionExecutor =
        options.completionExecutor().orElseGet(() -> own(owned, "sluice-replication-completer"));
    this.clusterExecutor =
        options.standalone() ? Runnable::run : own(owned, "sluice-replication-cluster");
    this.readBarriers = new ReadBarriers(this::startReadBarrier, clusterExecutor);
    this.forwarding =
        new LeaderForwarding(
            this::newForwardingClient,
            options.standalone() ? Runnable::run : own(owned, "sluice-replication-client-closer"));
    this.ownedExecutors = List.copyOf(owned);
    // Random per instance: batches replayed from an earlier run, or proposed by another peer, never
    // match, so their outcomes are not routed to anyone here.
    long proposerId = ThreadLocalRandom.current().nextLong();
    this.proposer =
        new BatchProposer(
            proposerId,
            options,
            proposerExecutor,
            completionExecutor,
            this::propose,
            RatisReplicator::translateFailure);
    this.stateMachine =
        new ReplicationStateMachine(
            selfId,
            states,
            proposerId,
            new ReplicationStateMachine.Listener() {
              @Override
              public void onApplied(long batchProposerId, long sequence, Object[] outcomes) {
                proposer.onApplied(batchProposerId, sequence, outcomes);
              }

              @Override
              public void onLeaderReady() {
                markLeaderReady();
                forwarding.leaderChanged(selfId);
              }

              @Override
              public void onNotLeader() {
                leaderReady = false;
              }

              @Override
              public void onLeaderChanged(RaftPeerId leaderId) {
                if (leaderId != null) {
                  markFollowing(leaderId);
                  forwarding.leaderChanged(leaderId);
                }
              }
            },
            statesHold);
  }

  /**
   * Starts the Ratis server over {@code options.dataDir()}: loads the newest valid snapshot into
   * the states, opens the log and begins the election. Returns before the log is replayed; wait for
   * {@link #ready()} before submitting. The states must be new (empty) and must not be shared with
   * another replicator.
   *
   * @throws IOException when the data directory cannot be used, a snapshot cannot be loaded, or the
   *     log no longer reaches back to the newest usable snapshot (the server must not start with
   *     writes missing)
   */
  public static RatisReplicator start(
      ReplicationOptions options, Collection<? extends ReplicatedState> states) throws IOException {
    Objects.requireNonNull(options, "options");
    List<ReplicatedState> stateList = List.copyOf(states);
    validateStates(stateList);
    RatisReplicator replicator = new RatisReplicator(options, stateList, null);
    try {
      replicator.startServer();
      return replicator;
    } catch (IOException | RuntimeException e) {
      long snapshotIndex = replicator.stateMachine.loadedSnapshotIndex();
      replicator.close();
      // Ratis refuses a log with a damaged closed segment even when the loaded snapshot covers
      // it; checked only now, so that a good start never reads the log twice.
      if (!CoveredLogSegments.setAsideDamaged(replicator.logDirectory(), snapshotIndex, options)) {
        throw e;
      }
    }
    RatisReplicator retried = new RatisReplicator(options, stateList, null);
    try {
      retried.startServer();
    } catch (IOException | RuntimeException e) {
      retried.close();
      throw e;
    }
    return retried;
  }

  /** Where Ratis keeps this group's log segments. */
  private Path logDirectory() {
    return RatisProperties.groupDirectory(options, groupId.getUuid().toString())
        .toPath()
        .resolve("current");
  }

  /** {@link #start}, with the I/O failure unchecked, naming the data directory. */
  static RatisReplicator startUnchecked(
      ReplicationOptions options, Collection<? extends ReplicatedState> states) {
    try {
      return start(options, states);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the store in " + options.dataDir(), e);
    }
  }

  /**
   * Replaces a {@linkplain #failure() failed} replicator with a new engine over the same data
   * directory and states, losing no applied write: closes the failed one (its pending submissions
   * fail at once, outcome unknown) and waits until Ratis has fully stopped it, writes a snapshot of
   * the states exactly as applied, and starts a new Ratis server from it, which replays only the
   * log after it (entries written but not yet applied) and leaves the states in place, so readers
   * never see them go back. Call it once the cause is gone (space freed); on failure it can be
   * called again.
   *
   * <p>Ratis may be stopping the failed server itself on another thread (it shuts a member down
   * after a JVM pause longer than its close threshold), and its apply thread then writes a snapshot
   * on stop: the new engine starts only once that is done, so no two engines share the directory.
   *
   * @throws IOException when the snapshot or the log cannot be written or opened (still no space),
   *     or when an apply was cut short half-way, so the states may hold part of an entry: then only
   *     a restart of the process rebuilds them from disk
   */
  public static RatisReplicator restart(RatisReplicator failed) throws IOException {
    failed.close();
    if (!failed.ratisStopped()) {
      // Ratis may still be writing its snapshot on stop (large states, a loaded machine): the
      // next attempt looks again. Starting beside it would share its directory and files.
      throw new IOException(
          "the failed Ratis server has not stopped yet (it may still be writing its snapshot);"
              + " if it never does (a deadlock), restart the server");
    }
    if (failed.stateMachine.tornMidApply()) {
      throw new IOException(
          "an apply was cut short half-way, so the states may hold part of a log entry; restart"
              + " the server to rebuild them from disk");
    }
    SnapshotFile.Position applied = failed.writeSnapshotOfAppliedStates();
    RatisReplicator replicator = new RatisReplicator(failed.options, failed.states, applied);
    try {
      replicator.startServer();
    } catch (IOException | RuntimeException e) {
      replicator.close();
      throw e;
    }
    log.info("the store was restarted in-process from the snapshot at {}", applied);
    return replicator;
  }

  /**
   * Why this replicator can no longer commit writes: its log failed to write, one of Ratis's
   * threads died, or Ratis stopped the group member; null while it works (or was closed normally).
   * Once failed it stays failed: see {@link #restart}.
   */
  public String failure() {
    String known = failure;
    if (known != null || closed.get()) {
      return known;
    }
    String now = stateMachine.logFailure();
    if (now == null) {
      now = engineThreads.death();
    }
    RaftServer raft = server;
    if (now == null && raft != null) {
      try {
        if (!raft.getDivision(groupId).getInfo().isAlive()) {
          now = "Ratis stopped the replication group member (see the error logged before)";
        }
      } catch (IOException | RuntimeException e) {
        now = "Ratis closed the replication group member: " + e.getMessage();
      }
    }
    if (now != null && !closed.get()) {
      failure = now;
      leaderReady = false;
      return now;
    }
    return null;
  }

  /**
   * Whether this node is out of the replication group on purpose rather than failed: Ratis stopped
   * its member after a membership change left it out. Either its own Raft configuration no longer
   * lists it (it received the change), or, campaigning once the leader stopped sending to it, the
   * leader answered that it is not a member, which a node that was a member before hears only after
   * being removed. A node started to join and not yet added hears the same answer; it was never a
   * member ({@code wasMember} false, and this engine never joined), so it is not "removed". Such a
   * node must not be restarted in-process: it would campaign again and be told again to stop.
   *
   * @param wasMember whether an earlier engine of this node (before an in-process restart) had
   *     joined the cluster
   */
  public boolean removedFromGroup(boolean wasMember) {
    if (options.standalone()) {
      return false;
    }
    boolean told = stateMachine.shutDownByGroup();
    if (!listsSelf()) {
      return told || failure() != null;
    }
    return told && (wasMember || joinedOnce());
  }

  /** Whether this engine has joined the cluster once (known a leader, replayed its log). */
  public boolean joinedOnce() {
    return firstReady.isDone() && !firstReady.isCompletedExceptionally();
  }

  /** Whether this node's newest Raft configuration (committed or not) lists it as a member. */
  private boolean listsSelf() {
    RaftServer.Division member = division;
    if (member == null) {
      return true;
    }
    try {
      for (RaftPeer peer : member.getRaftConf().getCurrentPeers()) {
        if (peer.getId().equals(selfId)) {
          return true;
        }
      }
      return false;
    } catch (RuntimeException e) {
      return true;
    }
  }

  /**
   * Writes the states of a stopped engine as a snapshot at their applied position, unless the
   * newest snapshot already holds it; returns that position, or null when nothing was ever applied.
   */
  private SnapshotFile.Position writeSnapshotOfAppliedStates() throws IOException {
    var applied = stateMachine.getLastAppliedTermIndex();
    if (applied == null || applied.getIndex() < 0) {
      return null;
    }
    SnapshotFile.Position position =
        new SnapshotFile.Position(applied.getTerm(), applied.getIndex());
    var latest = stateMachine.getLatestSnapshot();
    if (latest == null || latest.getIndex() < applied.getIndex()) {
      SnapshotFile.write(stateMachine.snapshots().pathFor(position), position, states);
    }
    return position;
  }

  @Override
  public CompletableFuture<Object> submit(String stateName, byte[] command) {
    Objects.requireNonNull(stateName, "stateName");
    Objects.requireNonNull(command, "command");
    if (closed.get()) {
      return CompletableFuture.failedFuture(new ReplicatorClosedException("replicator is closed"));
    }
    byte[] name = stateNames.get(stateName);
    if (name == null) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(
              "no replicated state named '" + stateName + "'; known: " + stateNames.keySet()));
    }
    if (command.length > options.maxCommandBytes()) {
      return CompletableFuture.failedFuture(
          new CommandTooLargeException(
              "command of "
                  + command.length
                  + " bytes exceeds the limit of "
                  + options.maxCommandBytes()));
    }
    // In a cluster that has had a leader, a write waits out an election (up to the request
    // timeout, in the forwarding path) rather than failing at once: clients see latency, not an
    // error, when the leader changes.
    boolean waitsForLeader = !options.standalone() && firstReady.isDone();
    if (!leadsNow() && knownLeader() == null && !waitsForLeader) {
      return CompletableFuture.failedFuture(
          new ReplicatorNotReadyException(
              !firstReady.isDone()
                  ? "replicator is still starting (log replay and election)"
                  : "this node is not the leader of the replication group"));
    }
    return proposer.submit(name, command);
  }

  /**
   * Standalone: this node leads and has applied the log. Cluster: this node has replayed its log
   * and joined the cluster once (it has known a leader); it stays ready through later elections,
   * during which writes wait for the new leader and reads refuse with their own clear error.
   */
  @Override
  public boolean isReady() {
    if (closed.get()) {
      return false;
    }
    return options.standalone() ? leaderReady : firstReady.isDone();
  }

  /** Whether this node is the leader now and has applied the whole log. */
  public boolean isLeader() {
    return leadsNow() && !closed.get();
  }

  /** The id of the leader this node knows of (itself included), or empty. */
  public Optional<String> leaderId() {
    RaftPeerId leader = knownLeader();
    return leader == null ? Optional.empty() : Optional.of(leader.toString());
  }

  /**
   * Leads and has applied the whole log. In a cluster, asked of Ratis itself rather than tracked
   * from its notices: a leader that steps down and one that applies its first entry of the term are
   * reported on different threads, and their order is not guaranteed.
   */
  private boolean leadsNow() {
    if (options.standalone()) {
      return leaderReady;
    }
    RaftServer.Division member = division;
    return member != null && member.getInfo().isLeader() && member.getInfo().isLeaderReady();
  }

  /** The leader this node knows of, itself included, or null. */
  private RaftPeerId knownLeader() {
    if (options.standalone()) {
      return leaderReady ? selfId : null;
    }
    RaftServer.Division member = division;
    return member == null ? null : member.getInfo().getLeaderId();
  }

  /** The group as this node sees it now (see {@link GroupStatus} for what a follower knows). */
  public GroupStatus groupStatus() {
    Map<String, Long> followerSilenceMillis = new HashMap<>();
    long term = 0;
    RaftServer raft = server;
    if (raft != null && !closed.get()) {
      try {
        var info = raft.getDivision(groupId).getInfo();
        term = info.getCurrentTerm();
        var role = info.getRoleInfoProto();
        if (role.hasLeaderInfo()) {
          for (var follower : role.getLeaderInfo().getFollowerInfoList()) {
            followerSilenceMillis.put(
                follower.getId().getId().toStringUtf8(), follower.getLastRpcElapsedTimeMs());
          }
        }
      } catch (IOException | RuntimeException e) {
        // Closed or not started: nothing is known beyond the configuration.
      }
    }
    Optional<String> leader = leaderId();
    long downAfterMillis = 2 * options.electionTimeoutMax().toMillis();
    List<GroupStatus.Peer> peers = new ArrayList<>();
    for (ReplicationPeer peer : members()) {
      boolean isLeader = leader.isPresent() && leader.get().equals(peer.id());
      GroupStatus.Reachability reachability;
      if (peer.id().equals(selfId.toString()) || isLeader) {
        reachability = GroupStatus.Reachability.UP;
      } else if (followerSilenceMillis.containsKey(peer.id())) {
        reachability =
            followerSilenceMillis.get(peer.id()) <= downAfterMillis
                ? GroupStatus.Reachability.UP
                : GroupStatus.Reachability.DOWN;
      } else {
        reachability = GroupStatus.Reachability.UNKNOWN;
      }
      peers.add(
          new GroupStatus.Peer(
              peer.id(),
              peer.address(),
              isLeader,
              reachability,
              followerSilenceMillis.getOrDefault(peer.id(), -1L)));
    }
    var applied = stateMachine.getLastAppliedTermIndex();
    return new GroupStatus(
        selfId.toString(),
        leader,
        term,
        applied == null ? RaftLog.INVALID_LOG_INDEX : applied.getIndex(),
        List.copyOf(peers));
  }

  /**
   * Completes once this node's state holds every write acknowledged anywhere before the call:
   * Ratis's ReadIndex (the leader confirms it still leads with a heartbeat round and names its
   * commit index; this node waits until it has applied that far). At once in standalone, where
   * every acknowledged write was applied here first. Concurrent callers share barriers: a caller
   * joins the next barrier to start, never one already in flight, which may predate its write.
   * Fails with {@link ReplicatorNotReadyException} when no leader confirms within {@code
   * requestTimeout} (a node cut off from the majority).
   */
  @Override
  public CompletableFuture<Void> readBarrier() {
    if (options.standalone()) {
      return Replicator.NO_BARRIER;
    }
    if (closed.get()) {
      return CompletableFuture.failedFuture(new ReplicatorClosedException("replicator is closed"));
    }
    if (knownLeader() == null) {
      return CompletableFuture.failedFuture(new ReplicatorNotReadyException(noLeaderMessage()));
    }
    return readBarriers.join();
  }

  private CompletableFuture<Void> startReadBarrier() {
    RaftServer raft = server;
    if (raft == null) {
      return CompletableFuture.failedFuture(new ReplicatorNotReadyException("not started"));
    }
    RaftClientRequest request =
        RaftClientRequest.newBuilder()
            .setClientId(clientId)
            .setServerId(selfId)
            .setGroupId(groupId)
            .setCallId(nextAdminCallId.getAndIncrement())
            .setMessage(Message.EMPTY)
            .setType(RaftClientRequest.readRequestType())
            .build();
    try {
      return raft.submitClientRequestAsync(request)
          .orTimeout(options.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)
          .handle(
              (reply, failure) -> {
                Throwable cause = failure != null ? failure : reply.getException();
                if (cause == null && reply.isSuccess()) {
                  return null;
                }
                throw new CompletionException(
                    new ReplicatorNotReadyException(
                        "no leader confirmed a linearizable read within "
                            + options.requestTimeout().toMillis()
                            + " ms ("
                            + noLeaderMessage()
                            + ")",
                        cause));
              });
    } catch (IOException e) {
      return CompletableFuture.failedFuture(translateFailure(e));
    }
  }

  /** What this node knows of the leader, for a failed write's message. */
  private String leaderMessage() {
    RaftPeerId leader = knownLeader();
    return leader == null
        ? noLeaderMessage()
        : "this node (" + selfId + ") follows " + leader + " as leader";
  }

  private String noLeaderMessage() {
    return "this node ("
        + selfId
        + ") knows no leader of the cluster: it cannot reach a majority of the "
        + options.peers().size()
        + " peers, or an election is under way";
  }

  @Override
  public CompletableFuture<Void> ready() {
    return firstReady;
  }

  /**
   * The group's members as this node knows them now: the configuration Ratis last applied here (it
   * changes with {@link #changeMembers}, and a restarted node reads it from its own storage, not
   * from the options), in the options' order with members added since at the end; the options'
   * peers before the store runs.
   */
  public List<ReplicationPeer> members() {
    RaftServer.Division member = division;
    if (member == null || options.standalone()) {
      return options.peers();
    }
    Collection<RaftPeer> current;
    try {
      current = member.getRaftConf().getCurrentPeers();
    } catch (RuntimeException e) {
      return options.peers();
    }
    if (current.isEmpty()) {
      return options.peers();
    }
    Map<String, ReplicationPeer> byId = new java.util.LinkedHashMap<>();
    for (RaftPeer peer : current) {
      String address = peer.getAddress();
      int colon = address.lastIndexOf(':');
      byId.put(
          peer.getId().toString(),
          new ReplicationPeer(
              peer.getId().toString(),
              address.substring(0, colon),
              Integer.parseInt(address.substring(colon + 1))));
    }
    List<ReplicationPeer> ordered = new ArrayList<>();
    for (ReplicationPeer peer : options.peers()) {
      ReplicationPeer live = byId.remove(peer.id());
      if (live != null) {
        ordered.add(live);
      }
    }
    byId.values().stream()
        .sorted(java.util.Comparator.comparing(ReplicationPeer::id))
        .forEach(ordered::add);
    return List.copyOf(ordered);
  }

  /**
   * Changes the group's membership to exactly {@code newMembers}, on any node: the request goes to
   * the leader, which first brings new members up to date (from its log, or a snapshot) and then
   * commits the new configuration through Raft's joint consensus, so a majority of both the old and
   * the new membership agrees and no acknowledged write is lost. Completes once the new
   * configuration is committed. One change at a time; a second one while one runs fails at once.
   *
   * <p>A new member must already run, started with a cluster list that includes itself. A removed
   * member stops hearing from the leader and should then be stopped; removing the leader makes it
   * step down once the change is committed.
   */
  public CompletableFuture<Void> changeMembers(List<ReplicationPeer> newMembers) {
    if (options.standalone()) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("a standalone server has no cluster membership to change"));
    }
    if (closed.get()) {
      return CompletableFuture.failedFuture(new ReplicatorClosedException("replicator is closed"));
    }
    if (newMembers.isEmpty()) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("a cluster needs at least one member"));
    }
    if (!membershipChanging.compareAndSet(false, true)) {
      return CompletableFuture.failedFuture(
          new ReplicatorOverloadedException(
              "a membership change is already under way on this node; retry once it is done"));
    }
    List<RaftPeer> target = toRaftPeers(newMembers);
    CompletableFuture<Void> changed = new CompletableFuture<>();
    Thread changer =
        new Thread(
            () -> {
              try (RaftClient admin =
                  RaftClient.newBuilder()
                      .setClientId(ClientId.randomId())
                      .setRaftGroup(RaftGroup.valueOf(groupId, raftPeers()))
                      .setLeaderId(knownLeader())
                      .setProperties(RatisProperties.membershipClientProperties(options))
                      .setRetryPolicy(RatisProperties.membershipRetryPolicy(options))
                      .build()) {
                RaftClientReply reply = admin.admin().setConfiguration(target);
                if (reply.isSuccess()) {
                  log.info("cluster membership is now {}", newMembers);
                  changed.complete(null);
                } else {
                  changed.completeExceptionally(translateFailure(reply.getException()));
                }
              } catch (IOException | RuntimeException e) {
                changed.completeExceptionally(
                    new ReplicationException(
                        "the membership change did not complete; it may still take effect: " + e,
                        e));
              } finally {
                membershipChanging.set(false);
              }
            },
            "sluice-membership-change");
    changer.setDaemon(true);
    changer.start();
    return changed;
  }

  /**
   * Hands leadership from this node to {@code peerId}: Ratis waits until the peer's log has caught
   * up, then has it start an election it wins at once. Completes once the peer leads; fails when
   * this node does not lead, the peer is not a member, or it did not take over within {@code
   * timeout}. Writes in flight meanwhile are not lost: forwarded ones follow the new leader, and
   * local ones fail "outcome unknown" only if this node loses leadership before they commit.
   */
  public CompletableFuture<Void> transferLeadership(String peerId, Duration timeout) {
    if (closed.get()) {
      return CompletableFuture.failedFuture(new ReplicatorClosedException("replicator is closed"));
    }
    return requestTransfer(peerId, timeout);
  }

  private CompletableFuture<Void> requestTransfer(String peerId, Duration timeout) {
    RaftServer raft = server;
    if (raft == null) {
      return CompletableFuture.failedFuture(new ReplicatorNotReadyException("not started"));
    }
    TransferLeadershipRequest request =
        new TransferLeadershipRequest(
            clientId,
            selfId,
            groupId,
            nextAdminCallId.getAndIncrement(),
            RaftPeerId.valueOf(peerId),
            timeout.toMillis());
    try {
      return raft.transferLeadershipAsync(request)
          .thenApply(
              reply -> {
                if (!reply.isSuccess()) {
                  throw new CompletionException(
                      new ReplicatorNotReadyException(
                          "leadership was not handed to "
                              + peerId
                              + ": "
                              + reply.getException().getMessage(),
                          reply.getException()));
                }
                return null;
              });
    } catch (IOException | RuntimeException e) {
      return CompletableFuture.failedFuture(translateFailure(e));
    }
  }

  /**
   * Writes a snapshot now (normally they are taken every {@code snapshotThresholdEntries} entries)
   * and purges the log behind it; completes with the snapshot's log index.
   */
  public CompletableFuture<Long> takeSnapshot() {
    RaftServer raft = server;
    if (raft == null || closed.get()) {
      return CompletableFuture.failedFuture(new ReplicatorClosedException("replicator is closed"));
    }
    SnapshotManagementRequest request =
        SnapshotManagementRequest.newCreate(
            clientId,
            selfId,
            groupId,
            nextAdminCallId.getAndIncrement(),
            SNAPSHOT_REQUEST_TIMEOUT.toMillis(),
            1);
    try {
      return raft.snapshotManagementAsync(request)
          .thenApply(
              reply -> {
                if (!reply.isSuccess()) {
                  throw new CompletionException(translateFailure(reply.getException()));
                }
                return reply.getLogIndex();
              });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(translateFailure(e));
    }
  }

  public ReplicationOptions options() {
    return options;
  }

  /** Where the snapshot files are kept (inside the Ratis group directory). */
  public Path snapshotDirectory() {
    return stateMachine.snapshots().directory();
  }

  public ReplicationStats stats() {
    long logStart = RaftLog.INVALID_LOG_INDEX;
    RaftServer raft = server;
    if (raft != null) {
      try {
        logStart = raft.getDivision(groupId).getRaftLog().getStartIndex();
      } catch (IOException | RuntimeException e) {
        // Closed or not started: report no log.
      }
    }
    var applied = stateMachine.getLastAppliedTermIndex();
    var snapshot = stateMachine.getLatestSnapshot();
    return new ReplicationStats(
        proposer.entriesProposed(),
        proposer.commandsProposed(),
        stateMachine.entriesApplied(),
        stateMachine.commandsApplied(),
        stateMachine.commandsFailed(),
        applied == null ? RaftLog.INVALID_LOG_INDEX : applied.getIndex(),
        snapshot == null ? RaftLog.INVALID_LOG_INDEX : snapshot.getIndex(),
        logStart,
        proposer.pendingSubmissions());
  }

  /**
   * Stops taking submissions, waits up to {@link #CLOSE_DRAIN_TIMEOUT} for accepted ones to be
   * applied, hands leadership to a follower when this node leads a cluster, then stops Ratis (which
   * applies what is committed and writes a final snapshot) and fails whatever is left with {@link
   * ReplicatorClosedException}.
   */
  @Override
  public void close() {
    // A failed engine commits nothing more: waiting for its pending submissions would only delay
    // the restart that replaces it.
    long drainMillis = failure() != null ? 0 : CLOSE_DRAIN_TIMEOUT.toMillis();
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    leaderReady = false;
    ReplicatorClosedException closedException =
        new ReplicatorClosedException("replicator closed before the command was acknowledged");
    firstReady.completeExceptionally(closedException);
    try {
      proposer.stopAccepting(closedException).get(drainMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      log.warn(
          "{} submissions still pending {}; failing them",
          proposer.pendingSubmissions(),
          drainMillis == 0
              ? "(the engine failed: they cannot commit)"
              : "after " + drainMillis + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot happen: the drain future never fails", e);
    }
    if (!options.standalone() && leadsNow()) {
      handOverLeadership();
    }
    forwarding.close();
    RaftServer raft = server;
    if (raft != null) {
      ratisStopped = stopRatis(raft, division);
    }
    proposer.close(closedException);
    for (ExecutorService executor : ownedExecutors) {
      executor.shutdown();
    }
    for (ExecutorService executor : ownedExecutors) {
      try {
        if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
          log.warn("replication executor did not finish within 5 s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
  }

  /**
   * A leader that stops cleanly first hands leadership to the follower it heard from last, so the
   * others go on writing after a redirect instead of waiting out an election timeout (a rolling
   * restart stops the leader once). Bounded by the request timeout; when it fails, the node stops
   * anyway and the others elect a leader as after a crash.
   */
  private void handOverLeadership() {
    String target = null;
    long quietest = Long.MAX_VALUE;
    try {
      var role = division.getInfo().getRoleInfoProto();
      if (role.hasLeaderInfo()) {
        for (var follower : role.getLeaderInfo().getFollowerInfoList()) {
          if (follower.getLastRpcElapsedTimeMs() < quietest) {
            quietest = follower.getLastRpcElapsedTimeMs();
            target = follower.getId().getId().toStringUtf8();
          }
        }
      }
    } catch (RuntimeException e) {
      log.debug("no follower to hand leadership to", e);
      return;
    }
    if (target == null || quietest > 2 * options.electionTimeoutMax().toMillis()) {
      return;
    }
    long began = System.nanoTime();
    Duration timeout = options.requestTimeout();
    try {
      requestTransfer(target, timeout).get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
      log.info(
          "handed leadership to {} before stopping ({} ms)",
          target,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began));
    } catch (ExecutionException | TimeoutException e) {
      log.warn(
          "could not hand leadership to {} before stopping ({}); the others will elect a leader",
          target,
          String.valueOf(rootCause(e).getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Closes the Ratis server, working around a deadlock in Ratis's log close (3.2.x and later, as of
   * this writing): the closing thread holds the log's write lock while it joins the cache-eviction
   * thread, which may be waiting for that lock, so neither moves and the server never stops (a
   * process that ignores SIGTERM; an engine that cannot be restarted). The join is interruptible:
   * when closing takes longer than {@link #RATIS_STOP_PATIENCE}, threads joined there are
   * interrupted, after which the close finishes. A close another thread started (Ratis's pause
   * monitor) is left to that thread and waited for. Waits until the server and its member are fully
   * closed; returns whether that was within the patience ({@link #ratisStopped()} looks again
   * later).
   */
  private static boolean stopRatis(RaftServer raft, RaftServer.Division member) {
    Thread stopper =
        new Thread(
            () -> {
              // Ratis closes the server itself after a long JVM pause, on its pause monitor's
              // thread. Closing it again then would return at once, and worse, stop the monitor:
              // interrupt the thread that is closing, which cuts its close short while the
              // member still closes (its apply thread writing a snapshot on stop).
              if (!raft.getLifeCycleState().isClosingOrClosed()) {
                try {
                  raft.close();
                } catch (IOException | RuntimeException e) {
                  log.warn("closing the Ratis server failed", e);
                }
              }
              try {
                while (!fullyClosed(raft, member)) {
                  Thread.sleep(10);
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "sluice-ratis-stop");
    stopper.setDaemon(true);
    stopper.start();
    try {
      for (int attempt = 0; attempt < RATIS_STOP_ATTEMPTS; attempt++) {
        stopper.join(RATIS_STOP_PATIENCE.toMillis());
        if (!stopper.isAlive()) {
          return true;
        }
        int interrupted = interruptJoinsInLogClose();
        log.warn(
            "Ratis has not stopped within {} s; interrupted {} thread(s) stuck closing its log"
                + " (a deadlock with its cache eviction)",
            RATIS_STOP_PATIENCE.toSeconds() * (attempt + 1),
            interrupted);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    log.error(
        "Ratis has not stopped within {} s (still writing its snapshot, or stuck); its threads"
            + " are left behind",
        RATIS_STOP_PATIENCE.multipliedBy(RATIS_STOP_ATTEMPTS).toSeconds());
    return false;
  }

  /** Interrupts the threads waiting in Ratis's {@code AwaitToRun.close} (its thread join). */
  private static int interruptJoinsInLogClose() {
    int interrupted = 0;
    for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
      for (StackTraceElement frame : thread.getValue()) {
        if (frame.getClassName().equals("org.apache.ratis.util.AwaitToRun")
            && frame.getMethodName().equals("close")) {
          thread.getKey().interrupt();
          interrupted++;
          break;
        }
      }
    }
    return interrupted;
  }

  private void startServer() throws IOException {
    RaftProperties properties = RatisProperties.from(options);
    RaftGroup group = RaftGroup.valueOf(groupId, raftPeers());
    boolean existing =
        RatisProperties.groupDirectory(options, groupId.getUuid().toString()).isDirectory();
    server =
        RaftServer.newBuilder()
            .setServerId(selfId)
            .setGroup(group)
            .setStateMachine(stateMachine)
            .setProperties(properties)
            .setThreadGroup(engineThreads)
            .setOption(
                existing ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
            .build();
    server.start();
    division = server.getDivision(groupId);
    checkLogReachesSnapshot();
    refuseIfRemoved();
  }

  /**
   * A node removed from the cluster must not come back on its old data directory: the newest
   * membership its log holds (committed or not) leaves it out, the members ignore it, and it would
   * wait for a leader forever. Refuse to start and say what to do instead. A new node is not
   * refused: its log holds no membership yet (Ratis starts it from the cluster list until the
   * leader adds it).
   */
  private void refuseIfRemoved() throws IOException {
    if (options.standalone()) {
      return;
    }
    RaftConfiguration stored = division.getRaftConf();
    if (stored.getLogEntryIndex() < 0) {
      return;
    }
    List<String> members = new ArrayList<>();
    for (RaftPeer peer : stored.getCurrentPeers()) {
      if (peer.getId().equals(selfId)) {
        return;
      }
      members.add(peer.getAddress());
    }
    throw new IOException(
        "this node ("
            + selfId
            + ") is not a member of the cluster: the newest membership in its data directory "
            + options.dataDir()
            + " is "
            + members
            + " (Raft addresses; it was removed, or its addition never completed). Refusing to start; to bring it"
            + " back, start it on an empty data directory and add it again (POST"
            + " /nacos/v1/core/cluster/members).");
  }

  /**
   * The log must continue right after the snapshot the states were loaded from. It may not when the
   * newest snapshot was damaged and an older one was loaded after the log behind the newest was
   * purged: starting then would silently drop the writes in between.
   */
  private void checkLogReachesSnapshot() throws IOException {
    RaftLog raftLog = server.getDivision(groupId).getRaftLog();
    long logStart = raftLog.getStartIndex();
    long snapshotIndex = stateMachine.loadedSnapshotIndex();
    if (raftLog.getLastEntryTermIndex() != null && logStart > snapshotIndex + 1) {
      stateMachine.refuseSnapshots();
      throw new IOException(
          "the Raft log in "
              + options.dataDir()
              + " starts at index "
              + logStart
              + " but the newest usable snapshot ends at "
              + snapshotIndex
              + ": entries in between are lost (a newer snapshot was damaged?). Refusing to start;"
              + " restore the data directory from a backup.");
    }
  }

  private CompletableFuture<RaftClientReply> propose(long sequence, byte[] entry) {
    if (!options.standalone() && !leadsNow()) {
      // A follower, a node between leaders, or a leader still applying earlier terms (its own
      // server answers "not ready" and the client retries until it is).
      return forward(sequence, entry);
    }
    RaftClientRequest request =
        RaftClientRequest.newBuilder()
            .setClientId(clientId)
            .setServerId(selfId)
            .setGroupId(groupId)
            .setCallId(sequence)
            .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(entry)))
            .setType(RaftClientRequest.writeRequestType())
            .build();
    RaftServer raft = server;
    if (raft == null) {
      return CompletableFuture.failedFuture(new ReplicatorNotReadyException("not started"));
    }
    try {
      return raft.submitClientRequestAsync(request)
          .thenApply(
              reply -> {
                if (!reply.isSuccess()) {
                  throw new CompletionException(reply.getException());
                }
                return reply;
              });
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Sends a batch to the leader and completes once this node has applied it too, so the outcome
   * routed to the proposer (by the batch's proposer id) comes from this node's own state. Any
   * failure is "outcome unknown": the leader may have committed the batch. If the leader changes
   * while the batch is on its way, it gives up its in-flight slot, so the writes behind it go to
   * the new leader without waiting for it.
   */
  private CompletableFuture<RaftClientReply> forward(long sequence, byte[] entry) {
    long timeoutMillis = options.requestTimeout().toMillis();
    return forwarding
        .send(
            Message.valueOf(UnsafeByteOperations.unsafeWrap(entry)),
            knownLeader(),
            timeoutMillis,
            () -> proposer.releaseSlot(sequence))
        .thenCompose(
            reply -> {
              if (!reply.isSuccess()) {
                throw new CompletionException(reply.getException());
              }
              return stateMachine.awaitApplied(reply.getLogIndex()).thenApply(applied -> reply);
            })
        .orTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
        .exceptionally(
            failure -> {
              Throwable cause = rootCause(failure);
              if (cause instanceof ReplicationException replication) {
                throw new CompletionException(replication);
              }
              if (closed.get()) {
                throw new CompletionException(
                    new ReplicatorClosedException(
                        "replicator closed before the command was acknowledged; outcome unknown"));
              }
              String why =
                  cause instanceof TimeoutException
                      ? "the leader did not take the write within " + timeoutMillis + " ms"
                      : "forwarding the write to the leader failed (" + cause + ")";
              throw new CompletionException(
                  new ReplicatorNotReadyException(
                      why + "; outcome unknown (" + leaderMessage() + ")", cause));
            });
  }

  /**
   * A client aimed at {@code leader}, for {@link LeaderForwarding}: each attempt bounded by the
   * election timeout (see {@link RatisProperties}), attempts repeated until the request timeout, as
   * soon as what the failed attempt says about the leader allows ({@link ForwardingRetryPolicy}).
   */
  private RaftClient newForwardingClient(RaftPeerId leader) {
    return RaftClient.newBuilder()
        .setClientId(ClientId.randomId())
        .setRaftGroup(RaftGroup.valueOf(groupId, raftPeers()))
        .setLeaderId(leader)
        .setProperties(RatisProperties.forwardingClientProperties(options))
        .setRetryPolicy(
            ForwardingRetryPolicy.of(options, this::knownLeader, leader, forwardingFailures))
        .build();
  }

  private List<RaftPeer> raftPeers() {
    return toRaftPeers(members());
  }

  private static List<RaftPeer> toRaftPeers(List<ReplicationPeer> members) {
    List<RaftPeer> peers = new ArrayList<>();
    for (ReplicationPeer peer : members) {
      peers.add(RaftPeer.newBuilder().setId(peer.id()).setAddress(peer.address()).build());
    }
    return peers;
  }

  private void markFollowing(RaftPeerId leaderId) {
    if (closed.get()) {
      return;
    }
    log.debug("following {} in {}", leaderId, groupId);
    try {
      completionExecutor.execute(() -> firstReady.complete(null));
    } catch (RuntimeException e) {
      firstReady.complete(null);
    }
  }

  private void markLeaderReady() {
    if (closed.get()) {
      return;
    }
    leaderReady = true;
    log.debug("replication ready: leader of {} with the log applied", groupId);
    // ready() continuations run on the completion executor, not on Ratis's apply thread.
    try {
      completionExecutor.execute(() -> firstReady.complete(null));
    } catch (RuntimeException e) {
      firstReady.complete(null);
    }
  }

  static ReplicationException translateFailure(Throwable failure) {
    Throwable cause = rootCause(failure);
    if (cause instanceof ReplicationException replication) {
      return replication;
    }
    if (cause instanceof NotLeaderException
        || cause instanceof LeaderNotReadyException
        || cause instanceof LeaderSteppingDownException
        || cause instanceof ServerNotReadyException) {
      return new ReplicatorNotReadyException(
          "this node is not (or no longer) the leader; if it lost leadership after logging the"
              + " command, the command may still be applied",
          cause);
    }
    if (cause instanceof AlreadyClosedException) {
      return new ReplicatorClosedException(
          "replication stopped before the command was acknowledged; outcome unknown");
    }
    return new ReplicationException("replication failed; outcome unknown: " + cause, cause);
  }

  private static Throwable rootCause(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  private static void validateStates(List<ReplicatedState> states) {
    Map<String, ReplicatedState> seen = new HashMap<>();
    for (ReplicatedState state : states) {
      String name = Objects.requireNonNull(state.name(), "state name");
      int bytes = name.getBytes(StandardCharsets.UTF_8).length;
      if (bytes == 0 || bytes > CommandBatch.MAX_STATE_NAME_BYTES) {
        throw new IllegalArgumentException(
            "state name must be 1 to 255 bytes of UTF-8, was '" + name + "'");
      }
      if (seen.put(name, state) != null) {
        throw new IllegalArgumentException("two states are named '" + name + "'");
      }
    }
  }

  static RaftGroupId groupIdFor(String groupName) {
    // Derived from the name so every restart and every peer finds the same group directory.
    return RaftGroupId.valueOf(
        UUID.nameUUIDFromBytes(
            ("sluice-replication:" + groupName).getBytes(StandardCharsets.UTF_8)));
  }

  private static ExecutorService own(List<ExecutorService> owned, String threadName) {
    ExecutorService executor =
        Executors.newSingleThreadExecutor(
            task -> {
              Thread thread = new Thread(task, threadName);
              thread.setDaemon(true);
              return thread;
            });
    owned.add(executor);
    return executor;
  }
}
