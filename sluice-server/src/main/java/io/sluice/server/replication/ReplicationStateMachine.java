package io.sluice.server.replication;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine behind {@link RatisReplicator}: applies each committed batch command by
 * command to the named {@link ReplicatedState}s, hands the outcomes to the proposer, and writes and
 * loads {@link SnapshotFile}s.
 *
 * <p>Threading: Ratis calls {@link #applyTransaction} and {@link #takeSnapshot} on its single apply
 * thread (StateMachineUpdater), in log order, so states see one caller at a time and a snapshot
 * sees no apply in progress. {@link #initialize} and {@link #reinitialize} run before applies start
 * or while they are paused. Counters are written only by the apply thread and read by any.
 *
 * <p>{@link PreviewedState}s are also shown each batch before it commits ({@link #previewBatch}):
 * on the leader from {@link #preAppendTransaction} (called in log order, just before the entry is
 * appended), on a follower from {@link #startTransaction(LogEntryProto, RaftPeerRole)} (called as
 * the leader's append is added to the log, before it is flushed; or, for an entry this node did not
 * receive that way, such as one replayed at start, just before its apply). What they read of the
 * batch rides on the entry's Ratis transaction to its apply, so a replica reads each command once.
 *
 * <p>A state that throws does not stop replication: the command's future fails with {@link
 * StateApplyException} and the next command is applied. An entry that is not a batch this code can
 * read (damaged log, newer format) does stop it: Ratis closes the server, the replicator stops
 * being ready, and the error is logged, because skipping it would silently lose writes.
 *
 * <p>What can break the engine under it is recorded here for {@link RatisReplicator#failure()}: a
 * write of the log that failed on disk ({@link #notifyLogFailed}), and whether an apply was cut
 * short (an error thrown out of a batch half applied), after which only a restart of the process
 * can rebuild the states from disk.
 */
final class ReplicationStateMachine extends BaseStateMachine {
  private static final Logger log = LoggerFactory.getLogger(ReplicationStateMachine.class);
  private static final CompletableFuture<Message> APPLIED =
      CompletableFuture.completedFuture(Message.EMPTY);

  /** What the replicator learns from the state machine. */
  interface Listener {
    /** A batch proposed by {@code proposerId} was applied; called on the apply thread. */
    void onApplied(long proposerId, long sequence, Object[] outcomes);

    /** This node leads and has applied every earlier entry: writes may go. */
    void onLeaderReady();

    /** This node no longer leads (another leader, no leader, or shutting down). */
    void onNotLeader();

    /** Another peer leads now ({@code leaderId}), or none is known ({@code null}). */
    void onLeaderChanged(RaftPeerId leaderId);
  }

  private final RaftPeerId selfId;
  private final List<ReplicatedState> states;
  private final Map<String, ReplicatedState> statesByName;
  private final ByteBuffer[] stateNames;

  /** The state at the same position as in {@link #stateNames} if it previews, else null. */
  private final PreviewedState[] previewed;

  /** Whether any state previews: when none does, batches are not decoded before they commit. */
  private final boolean anyPreviewed;

  private final long localProposerId;
  private final Listener listener;
  private final SnapshotDirectory snapshots = new SnapshotDirectory();

  /**
   * Futures waiting for this node to apply up to an index (a follower's forwarded writes), by
   * index. Added by any thread, completed by the apply thread; bounded by the forwarded entries in
   * flight, since each waiter also times out.
   */
  private final ConcurrentSkipListMap<Long, CompletableFuture<Void>> appliedWaiters =
      new ConcurrentSkipListMap<>();

  /** Names of unknown states already warned about; touched only by the apply thread. */
  private final Set<String> unknownStatesReported = new HashSet<>();

  private volatile long entriesApplied;
  private volatile long commandsApplied;
  private volatile long commandsFailed;
  private volatile long loadedSnapshotIndex = RaftLog.INVALID_LOG_INDEX;

  /** Set when the states are known to be incomplete; no snapshot may record them then. */
  private volatile boolean snapshotsRefused;

  /**
   * The position the states already hold when this machine takes over from a failed engine ({@link
   * RatisReplicator#restart}): a snapshot at exactly that position is not loaded into them again.
   */
  private final SnapshotFile.Position statesHold;

  /** Why the log failed to write, or null; written by Ratis's log worker, read by any thread. */
  private volatile String logFailure;

  /**
   * True from the start of an entry's apply until it and the applied index are done; still true
   * afterwards only if the apply thread was thrown out half-way, leaving the states torn.
   */
  private volatile boolean midApply;

  ReplicationStateMachine(
      RaftPeerId selfId,
      List<ReplicatedState> states,
      long localProposerId,
      Listener listener,
      SnapshotFile.Position statesHold) {
    this.selfId = selfId;
    this.statesHold = statesHold;
    this.states = List.copyOf(states);
    this.statesByName = new LinkedHashMap<>();
    this.stateNames = new ByteBuffer[states.size()];
    this.previewed = new PreviewedState[states.size()];
    boolean anyPreview = false;
    for (int i = 0; i < states.size(); i++) {
      ReplicatedState state = states.get(i);
      statesByName.put(state.name(), state);
      stateNames[i] = ByteBuffer.wrap(state.name().getBytes(StandardCharsets.UTF_8));
      if (state instanceof PreviewedState p) {
        previewed[i] = p;
        anyPreview = true;
      }
    }
    this.anyPreviewed = anyPreview;
    this.localProposerId = localProposerId;
    this.listener = listener;
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    super.initialize(server, groupId, raftStorage);
    snapshots.init(raftStorage);
    getLifeCycle().startAndTransition(this::loadNewestValidSnapshot);
  }

  @Override
  public void pause() {
    // Ratis pauses before replacing the state machine directory with an installed snapshot.
    getLifeCycle().transition(LifeCycle.State.PAUSING);
    getLifeCycle().transition(LifeCycle.State.PAUSED);
  }

  @Override
  public void reinitialize() throws IOException {
    getLifeCycle().startAndTransition(this::loadNewestValidSnapshot);
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return snapshots;
  }

  @Override
  public SnapshotInfo getLatestSnapshot() {
    return snapshots.getLatestSnapshot();
  }

  /**
   * The leader: a batch is about to be appended to its log. What the previews read travels with the
   * transaction, which Ratis hands to {@link #applyTransaction} for the same entry.
   */
  @Override
  public TransactionContext preAppendTransaction(TransactionContext transaction)
      throws IOException {
    if (anyPreviewed) {
      transaction.setStateMachineContext(
          previewBatch(transaction.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer()));
    }
    return super.preAppendTransaction(transaction);
  }

  /**
   * A follower: the leader's entry is being added to this node's log (or is about to apply). Ratis
   * keeps the transaction made here (by entry) until the entry is applied or truncated, and hands
   * it to {@link #applyTransaction}.
   */
  @Override
  public TransactionContext startTransaction(LogEntryProto entry, RaftPeerRole role) {
    TransactionContext transaction = super.startTransaction(entry, role);
    if (anyPreviewed && entry.hasStateMachineLogEntry()) {
      transaction.setStateMachineContext(
          previewBatch(entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer()));
    }
    return transaction;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext transaction) {
    LogEntryProto entry = transaction.getLogEntry();
    long index = entry.getIndex();
    PreviewedBatch previews =
        transaction.getStateMachineContext() instanceof PreviewedBatch p ? p : null;
    // Ratis may keep the transaction a while after the apply; what the previews read is not needed
    // any more.
    transaction.setStateMachineContext(null);
    midApply = true;
    try {
      applyBatch(
          entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer(), index, previews);
    } catch (CommandBatch.MalformedBatchException | UnknownFormatException e) {
      log.error(
          "log entry {} is not a command batch this version can read; replication stops here"
              + " rather than skip it. Restore the data directory or run a newer version.",
          index,
          e);
      throw e;
    }
    updateLastAppliedTermIndex(entry.getTerm(), index);
    midApply = false;
    return APPLIED;
  }

  /** Called by Ratis's log worker when a write or flush of the log failed (ENOSPC, EIO...). */
  @Override
  public void notifyLogFailed(Throwable cause, LogEntryProto failedEntry) {
    if (logFailure == null) {
      logFailure = "the Raft log failed to write to disk: " + cause.getMessage();
      log.error("{}; the store takes no writes until it is restarted", logFailure);
    }
  }

  /** Why the log failed to write, or null. */
  String logFailure() {
    return logFailure;
  }

  /** Whether an apply was cut short, so the states may hold part of an entry. */
  boolean tornMidApply() {
    return midApply;
  }

  @Override
  protected boolean updateLastAppliedTermIndex(long term, long index) {
    boolean updated = super.updateLastAppliedTermIndex(term, index);
    // Every path that advances the index passes here: applied batches, and configuration and
    // no-op entries (through notifyTermIndexUpdated).
    completeAppliedWaiters(index);
    return updated;
  }

  /**
   * A read barrier's query: the read itself happens in the feature's memory once Ratis has seen
   * this node apply up to the read index, so there is nothing to return.
   */
  @Override
  public CompletableFuture<Message> query(Message request) {
    return APPLIED;
  }

  /** Completes once this node has applied the entry at {@code index} (at once if it has). */
  CompletableFuture<Void> awaitApplied(long index) {
    TermIndex applied = getLastAppliedTermIndex();
    if (applied != null && applied.getIndex() >= index) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> waiter =
        appliedWaiters.computeIfAbsent(index, i -> new CompletableFuture<>());
    // The apply thread may have passed the index between the check and the registration.
    applied = getLastAppliedTermIndex();
    if (applied != null && applied.getIndex() >= index) {
      completeAppliedWaiters(applied.getIndex());
    }
    return waiter;
  }

  private void completeAppliedWaiters(long index) {
    if (appliedWaiters.isEmpty()) {
      return;
    }
    for (Map.Entry<Long, CompletableFuture<Void>> waiter;
        (waiter = appliedWaiters.firstEntry()) != null && waiter.getKey() <= index; ) {
      if (appliedWaiters.remove(waiter.getKey(), waiter.getValue())) {
        waiter.getValue().complete(null);
      }
    }
  }

  @Override
  public long takeSnapshot() throws IOException {
    if (snapshotsRefused) {
      log.warn("not writing a snapshot: the states are incomplete (see the start-up error)");
      return RaftLog.INVALID_LOG_INDEX;
    }
    if (midApply) {
      // Only the apply thread snapshots, between applies: an apply is still marked running only
      // when an error threw it out half-way, and the states may hold part of that entry.
      log.warn("not writing a snapshot: an apply was cut short and the states may be torn");
      return RaftLog.INVALID_LOG_INDEX;
    }
    TermIndex applied = getLastAppliedTermIndex();
    if (applied == null || applied.getIndex() < 0) {
      return RaftLog.INVALID_LOG_INDEX;
    }
    SnapshotDirectory.Snapshot previous =
        snapshots.getLatestSnapshot() instanceof SnapshotDirectory.Snapshot s ? s : null;
    if (previous != null && previous.position().index() == applied.getIndex()) {
      return applied.getIndex();
    }
    SnapshotFile.Position position =
        new SnapshotFile.Position(applied.getTerm(), applied.getIndex());
    Path file = snapshots.pathFor(position);
    SnapshotFile.write(file, position, states);
    snapshots.setLatest(new SnapshotDirectory.Snapshot(file, position));
    log.debug("wrote snapshot {}", file);
    return applied.getIndex();
  }

  @Override
  public void notifyLeaderReady() {
    listener.onLeaderReady();
  }

  @Override
  public void notifyNotLeader(Collection<TransactionContext> pendingEntries) {
    listener.onNotLeader();
  }

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
    // A null leader only means "election in progress"; Ratis may deliver that notice after this
    // peer already became leader and said so through notifyLeaderReady, which must then stand.
    // Losing leadership is reported by notifyNotLeader, or by another peer becoming leader.
    if (newLeaderId != null && !selfId.equals(newLeaderId)) {
      listener.onNotLeader();
    }
    if (!selfId.equals(newLeaderId)) {
      listener.onLeaderChanged(newLeaderId);
    }
  }

  /**
   * Ratis shut this member down on its own, not as part of closing the whole server: its election
   * found it missing from its own configuration, or the leader answered its vote request that it
   * was removed. Written by a Ratis election thread, read by any.
   */
  private volatile boolean shutDownByGroup;

  @Override
  public void notifyServerShutdown(RoleInfoProto roleInfo, boolean allServer) {
    if (!allServer) {
      shutDownByGroup = true;
    }
    listener.onNotLeader();
  }

  /** Whether Ratis shut this member down because the group does not (or no longer) include it. */
  boolean shutDownByGroup() {
    return shutDownByGroup;
  }

  long entriesApplied() {
    return entriesApplied;
  }

  long commandsApplied() {
    return commandsApplied;
  }

  long commandsFailed() {
    return commandsFailed;
  }

  /** Index of the snapshot loaded at start, or -1 when the states started empty. */
  long loadedSnapshotIndex() {
    return loadedSnapshotIndex;
  }

  SnapshotDirectory snapshots() {
    return snapshots;
  }

  /**
   * Forbids snapshots from now on: the states miss writes (the start-up check failed), and Ratis
   * snapshots on stop, which would turn that loss into the newest snapshot.
   */
  void refuseSnapshots() {
    snapshotsRefused = true;
  }

  private void applyBatch(ByteBuffer data, long index, PreviewedBatch previews) {
    CommandBatch.Reader batch = CommandBatch.read(data);
    boolean local = batch.proposerId() == localProposerId;
    Object[] outcomes = local ? new Object[batch.count()] : null;
    Object[] previewed = previews == null ? null : previews.readingsOf(batch);
    int position = 0;
    long failed = 0;
    while (batch.next()) {
      Object outcome =
          applyCommand(
              batch.stateName(),
              batch.command(),
              index,
              batch.proposerId(),
              batch.sequence(),
              previewed == null ? null : previewed[position]);
      if (outcome instanceof ApplyFailure) {
        failed++;
      }
      if (local) {
        outcomes[position] = outcome;
      }
      position++;
    }
    entriesApplied++;
    commandsApplied += position;
    commandsFailed += failed;
    if (local) {
      listener.onApplied(batch.proposerId(), batch.sequence(), outcomes);
    }
  }

  /**
   * What the previewed states read of one batch, by command position (null where a command is not a
   * previewed state's, or its state returned nothing), handed to their apply with the entry.
   */
  private record PreviewedBatch(long proposerId, long sequence, Object[] readings) {
    /** The readings, if they are of this batch (always, unless Ratis mixed up transactions). */
    Object[] readingsOf(CommandBatch.Reader batch) {
      return proposerId == batch.proposerId()
              && sequence == batch.sequence()
              && readings.length == batch.count()
          ? readings
          : null;
    }
  }

  /**
   * Shows the previewed states their commands of a batch not yet committed and returns what they
   * read, or null when they read nothing. Runs on Ratis's threads (under its log lock), so it only
   * decodes and hands over; nothing it meets may fail the append: an unreadable batch is left to
   * {@link #applyTransaction}, which stops on it.
   */
  private PreviewedBatch previewBatch(ByteBuffer data) {
    try {
      CommandBatch.Reader batch = CommandBatch.read(data);
      Object[] readings = null;
      for (int position = 0; batch.next(); position++) {
        PreviewedState state = previewedNamed(batch.stateName());
        if (state != null) {
          Object reading = state.preview(batch.command(), batch.proposerId(), batch.sequence());
          if (reading != null) {
            if (readings == null) {
              readings = new Object[batch.count()];
            }
            readings[position] = reading;
          }
        }
      }
      return readings == null
          ? null
          : new PreviewedBatch(batch.proposerId(), batch.sequence(), readings);
    } catch (RuntimeException e) {
      log.debug("batch not previewed; it is applied if it commits", e);
      return null;
    }
  }

  private PreviewedState previewedNamed(ByteBuffer name) {
    for (int i = 0; i < stateNames.length; i++) {
      if (previewed[i] != null && stateNames[i].equals(name)) {
        return previewed[i];
      }
    }
    return null;
  }

  private Object applyCommand(
      ByteBuffer stateName,
      ByteBuffer command,
      long index,
      long proposerId,
      long sequence,
      Object previewed) {
    ReplicatedState state = stateNamed(stateName);
    if (state == null) {
      String name = StandardCharsets.UTF_8.decode(stateName.duplicate()).toString();
      if (unknownStatesReported.add(name)) {
        log.warn("log has commands for state '{}', which this node does not have; skipping", name);
      }
      return new ApplyFailure(
          new StateApplyException("no replicated state named '" + name + "' on this node", null));
    }
    try {
      return state instanceof PreviewedState p
          ? p.apply(command, index, proposerId, sequence, previewed)
          : state.apply(command, index);
    } catch (UnknownFormatException e) {
      throw e;
    } catch (RuntimeException | StackOverflowError e) {
      // A bad command must not stop replication. Every replica throws the same way for the same
      // command if the state is deterministic, so they all skip it and stay identical.
      log.error(
          "state '{}' threw applying the command at log index {}; the command is skipped and its"
              + " submitter gets the exception. apply() should return an error outcome instead.",
          state.name(),
          index,
          e);
      return new ApplyFailure(
          new StateApplyException(
              "state '" + state.name() + "' failed to apply the command at log index " + index, e));
    }
  }

  private ReplicatedState stateNamed(ByteBuffer name) {
    for (int i = 0; i < stateNames.length; i++) {
      if (stateNames[i].equals(name)) {
        return states.get(i);
      }
    }
    return null;
  }

  /**
   * Loads the newest snapshot that passes its checksums; damaged ones are moved aside and the next
   * older one is tried. Damage found part-way through a load leaves the states it reached partly
   * loaded: an older snapshot that reloads each of them is fine, otherwise the start is refused (a
   * restart then starts without the damaged file). The replicator checks afterwards that the log
   * still reaches back to the loaded snapshot (see {@link RatisReplicator}).
   */
  private void loadNewestValidSnapshot() throws IOException {
    Set<String> partlyLoaded = new HashSet<>();
    for (SnapshotDirectory.Snapshot candidate : snapshots.listNewestFirst()) {
      SnapshotFile.Position position;
      Set<String> reached = new HashSet<>();
      try {
        if (statesHold == null) {
          position =
              SnapshotFile.load(candidate.file(), candidate.position(), statesByName, reached);
        } else {
          position = SnapshotFile.verify(candidate.file());
          if (!position.equals(candidate.position())) {
            throw new CorruptSnapshotException(
                candidate.file()
                    + ": holds "
                    + position
                    + ", its name says "
                    + candidate.position());
          }
        }
      } catch (CorruptSnapshotException e) {
        log.error("refusing damaged snapshot: {}; trying an older one", e.getMessage());
        snapshots.setAside(candidate.file());
        partlyLoaded.addAll(reached);
        continue;
      }
      if (statesHold != null && !position.equals(statesHold)) {
        throw takeOverRefused("the newest valid snapshot is " + position);
      }
      if (!reached.containsAll(partlyLoaded)) {
        throw partlyLoadedRefused(partlyLoaded);
      }
      snapshots.setLatest(candidate);
      setLastAppliedTermIndex(TermIndex.valueOf(position.term(), position.index()));
      completeAppliedWaiters(position.index());
      loadedSnapshotIndex = position.index();
      log.debug("loaded snapshot {}", candidate.file());
      return;
    }
    if (statesHold != null) {
      throw takeOverRefused("there is no valid snapshot");
    }
    if (!partlyLoaded.isEmpty()) {
      throw partlyLoadedRefused(partlyLoaded);
    }
    loadedSnapshotIndex = RaftLog.INVALID_LOG_INDEX;
  }

  private IOException partlyLoadedRefused(Set<String> states) {
    // Ratis snapshots on stop: never record states that hold part of a damaged file.
    snapshotsRefused = true;
    return new IOException(
        "states "
            + new TreeSet<>(states)
            + " were partly loaded from a snapshot found damaged while loading (set aside as"
            + " .corrupt), and no older snapshot reloads them; restart the server to start"
            + " without it");
  }

  /**
   * Taking over from a failed engine, the states hold {@link #statesHold}, just written as a
   * snapshot; any other snapshot is older than them, and loading it would move them back.
   */
  private IOException takeOverRefused(String found) {
    return new IOException(
        "the states hold "
            + statesHold
            + " but "
            + found
            + "; not moving them back to an older one in-process (restart the server)");
  }
}
