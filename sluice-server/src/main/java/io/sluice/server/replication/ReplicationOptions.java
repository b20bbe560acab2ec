package io.sluice.server.replication;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * How a {@link RatisReplicator} stores, batches and replicates. Immutable; build one with {@link
 * #builder(Path)}. Every default is a named constant below, with the reason for its value.
 *
 * <p>Standalone is the default: a one-peer group made of {@link #self()}. A cluster lists every
 * peer, this one included, in {@link Builder#peers(List)}; all peers must be given the same list.
 */
public final class ReplicationOptions {
  /** Ratis between peers listens on 7848 (ARCHITECTURE.md, "Ports and defaults"). */
  public static final int DEFAULT_PORT = 7848;

  public static final String DEFAULT_HOST = "127.0.0.1";
  public static final String DEFAULT_PEER_ID = "n1";

  /** Names the Raft group; its UUID is derived from it, so it must not change across restarts. */
  public static final String DEFAULT_GROUP_NAME = "sluice";

  /**
   * Raft entries between snapshots. A restart reads every entry still in the log (about two
   * thresholds, plus the rest of a segment) and replays those after the snapshot: ~25 µs of CPU per
   * entry in a cold JVM, so 10k entries keep a restart within a second or so. Each snapshot writes
   * the whole state, so a state of hundreds of MB wants a higher threshold.
   */
  public static final long DEFAULT_SNAPSHOT_THRESHOLD_ENTRIES = 10_000;

  /** Snapshots kept on disk: the newest, plus older ones to fall back to if it is corrupt. */
  public static final int DEFAULT_SNAPSHOTS_RETAINED = 3;

  /**
   * Commands gathered into one Raft entry at most. An entry costs ~0.1 ms of CPU in Ratis whatever
   * its size, so batching is what makes writes cheap; past a few hundred the gain is flat.
   */
  public static final int DEFAULT_MAX_BATCH_COMMANDS = 256;

  /** Bytes of commands gathered into one entry at most (a larger single command goes alone). */
  public static final int DEFAULT_MAX_BATCH_BYTES = 1 << 20;

  /**
   * Entries proposed but not yet applied. Few, so that while they are being fsynced new submissions
   * pile up into the next, larger batch instead of trickling out one entry each.
   */
  public static final int DEFAULT_MAX_ENTRIES_IN_FLIGHT = 4;

  /**
   * Submissions accepted but not yet completed (queued, in the log, or being completed). Beyond it,
   * submit fails fast with {@link ReplicatorOverloadedException}.
   */
  public static final int DEFAULT_MAX_PENDING_SUBMISSIONS = 20_000;

  /** Bytes of commands accepted but not yet completed; the heap this layer may hold for them. */
  public static final long DEFAULT_MAX_PENDING_BYTES = 64L << 20;

  /**
   * Largest single command: a 10 MiB config (the config center's default limit) plus its metadata.
   * Ratis keeps a direct write buffer of this size, so raising it costs resident memory.
   */
  public static final int DEFAULT_MAX_COMMAND_BYTES = 11 << 20;

  /**
   * Size of one log segment file. The log is purged a whole closed segment at a time, and a restart
   * reads every segment left, so small segments keep restarts short; 2 MiB holds ~17k single-write
   * entries of a small config.
   */
  public static final long DEFAULT_LOG_SEGMENT_BYTES = 2L << 20;

  /**
   * Election timeout of a one-peer group's first election. Nobody else can win or needs to be heard
   * from, so the only effect of waiting is a slower start.
   */
  public static final Duration DEFAULT_STANDALONE_ELECTION_TIMEOUT = Duration.ofMillis(5);

  /**
   * Election timeouts of a multi-peer group: above Ratis's 150–300 ms because a 2-core machine
   * shared with the rest of the server pauses longer than that under load.
   */
  public static final Duration DEFAULT_CLUSTER_ELECTION_TIMEOUT_MIN = Duration.ofMillis(500);

  public static final Duration DEFAULT_CLUSTER_ELECTION_TIMEOUT_MAX = Duration.ofMillis(1000);

  /**
   * How long a follower waits for the leader to take a forwarded write, or to confirm a read
   * barrier, before it answers "unavailable". Below the official client's 3 s request timeout, so
   * the client sees our error rather than its own timeout; above two election timeouts, so a write
   * sent while a new leader is being elected still gets through.
   */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofMillis(2500);

  /**
   * A JVM pause longer than this makes Ratis shut the member down (its close threshold), which the
   * server then restarts in-process; Ratis's own default is 60 s.
   */
  public static final Duration DEFAULT_PAUSE_CLOSE_THRESHOLD = Duration.ofSeconds(10);

  private final Path dataDir;
  private final ReplicationPeer self;
  private final List<ReplicationPeer> peers;
  private final String groupName;
  private final long snapshotThresholdEntries;
  private final int snapshotsRetained;
  private final int maxBatchCommands;
  private final int maxBatchBytes;
  private final int maxEntriesInFlight;
  private final int maxPendingSubmissions;
  private final long maxPendingBytes;
  private final int maxCommandBytes;
  private final long logSegmentBytes;
  private final Duration electionTimeoutMin;
  private final Duration electionTimeoutMax;
  private final Duration requestTimeout;
  private final Duration pauseCloseThreshold;
  private final Executor proposerExecutor;
  private final Executor completionExecutor;

  private ReplicationOptions(Builder builder) {
    this.dataDir = builder.dataDir;
    this.self = builder.self;
    this.peers = builder.peers == null ? List.of(builder.self) : List.copyOf(builder.peers);
    if (!peers.contains(self)) {
      throw new IllegalArgumentException("peers " + peers + " must include this peer " + self);
    }
    if (peers.stream().map(ReplicationPeer::id).distinct().count() != peers.size()) {
      throw new IllegalArgumentException("peer ids must be distinct: " + peers);
    }
    this.groupName = builder.groupName;
    this.snapshotThresholdEntries = builder.snapshotThresholdEntries;
    this.snapshotsRetained = builder.snapshotsRetained;
    this.maxBatchCommands = builder.maxBatchCommands;
    this.maxBatchBytes = builder.maxBatchBytes;
    this.maxEntriesInFlight = builder.maxEntriesInFlight;
    this.maxPendingSubmissions = builder.maxPendingSubmissions;
    this.maxPendingBytes = builder.maxPendingBytes;
    this.maxCommandBytes = builder.maxCommandBytes;
    if (maxPendingBytes < maxCommandBytes) {
      throw new IllegalArgumentException(
          "max pending bytes ("
              + maxPendingBytes
              + ") must hold at least one command of max command bytes ("
              + maxCommandBytes
              + ")");
    }
    this.logSegmentBytes = builder.logSegmentBytes;
    boolean standalone = peers.size() == 1;
    this.electionTimeoutMin =
        builder.electionTimeoutMin != null
            ? builder.electionTimeoutMin
            : standalone
                ? DEFAULT_STANDALONE_ELECTION_TIMEOUT
                : DEFAULT_CLUSTER_ELECTION_TIMEOUT_MIN;
    this.electionTimeoutMax =
        builder.electionTimeoutMax != null
            ? builder.electionTimeoutMax
            : standalone
                ? electionTimeoutMin.multipliedBy(2)
                : DEFAULT_CLUSTER_ELECTION_TIMEOUT_MAX;
    if (electionTimeoutMax.compareTo(electionTimeoutMin) <= 0) {
      throw new IllegalArgumentException(
          "election timeout max ("
              + electionTimeoutMax
              + ") must be above min ("
              + electionTimeoutMin
              + ")");
    }
    this.requestTimeout = builder.requestTimeout;
    this.pauseCloseThreshold = builder.pauseCloseThreshold;
    this.proposerExecutor = builder.proposerExecutor;
    this.completionExecutor = builder.completionExecutor;
  }

  /** Options for a standalone replicator keeping its files under {@code dataDir}. */
  public static Builder builder(Path dataDir) {
    return new Builder(dataDir);
  }

  /** Where the Raft log and the snapshots live; the server passes {@code <data-dir>/ratis}. */
  public Path dataDir() {
    return dataDir;
  }

  public ReplicationPeer self() {
    return self;
  }

  /** Every member of the group, this one included; one element in standalone. */
  public List<ReplicationPeer> peers() {
    return peers;
  }

  public boolean standalone() {
    return peers.size() == 1;
  }

  public String groupName() {
    return groupName;
  }

  public long snapshotThresholdEntries() {
    return snapshotThresholdEntries;
  }

  public int snapshotsRetained() {
    return snapshotsRetained;
  }

  public int maxBatchCommands() {
    return maxBatchCommands;
  }

  public int maxBatchBytes() {
    return maxBatchBytes;
  }

  public int maxEntriesInFlight() {
    return maxEntriesInFlight;
  }

  public int maxPendingSubmissions() {
    return maxPendingSubmissions;
  }

  public long maxPendingBytes() {
    return maxPendingBytes;
  }

  public int maxCommandBytes() {
    return maxCommandBytes;
  }

  public long logSegmentBytes() {
    return logSegmentBytes;
  }

  public Duration electionTimeoutMin() {
    return electionTimeoutMin;
  }

  public Duration electionTimeoutMax() {
    return electionTimeoutMax;
  }

  /** How long a follower waits for the leader (forwarded writes, read barriers). */
  public Duration requestTimeout() {
    return requestTimeout;
  }

  /** How long a JVM pause Ratis tolerates before it shuts the member down. */
  public Duration pauseCloseThreshold() {
    return pauseCloseThreshold;
  }

  /** Runs the group-commit loop; empty means a thread owned by the replicator. */
  public Optional<Executor> proposerExecutor() {
    return Optional.ofNullable(proposerExecutor);
  }

  /** Completes submitters' futures; empty means a thread owned by the replicator. */
  public Optional<Executor> completionExecutor() {
    return Optional.ofNullable(completionExecutor);
  }

  @Override
  public String toString() {
    return "ReplicationOptions{dataDir="
        + dataDir
        + ", self="
        + self
        + ", peers="
        + peers
        + ", snapshotThresholdEntries="
        + snapshotThresholdEntries
        + ", maxBatchCommands="
        + maxBatchCommands
        + ", maxEntriesInFlight="
        + maxEntriesInFlight
        + ", maxPendingSubmissions="
        + maxPendingSubmissions
        + '}';
  }

  public static final class Builder {
    private final Path dataDir;
    private ReplicationPeer self = new ReplicationPeer(DEFAULT_PEER_ID, DEFAULT_HOST, DEFAULT_PORT);
    private List<ReplicationPeer> peers;
    private String groupName = DEFAULT_GROUP_NAME;
    private long snapshotThresholdEntries = DEFAULT_SNAPSHOT_THRESHOLD_ENTRIES;
    private int snapshotsRetained = DEFAULT_SNAPSHOTS_RETAINED;
    private int maxBatchCommands = DEFAULT_MAX_BATCH_COMMANDS;
    private int maxBatchBytes = DEFAULT_MAX_BATCH_BYTES;
    private int maxEntriesInFlight = DEFAULT_MAX_ENTRIES_IN_FLIGHT;
    private int maxPendingSubmissions = DEFAULT_MAX_PENDING_SUBMISSIONS;
    private long maxPendingBytes = DEFAULT_MAX_PENDING_BYTES;
    private int maxCommandBytes = DEFAULT_MAX_COMMAND_BYTES;
    private long logSegmentBytes = DEFAULT_LOG_SEGMENT_BYTES;
    private Duration electionTimeoutMin;
    private Duration electionTimeoutMax;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private Duration pauseCloseThreshold = DEFAULT_PAUSE_CLOSE_THRESHOLD;
    private Executor proposerExecutor;
    private Executor completionExecutor;

    private Builder(Path dataDir) {
      this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
    }

    /** This peer's id and Ratis address; default {@value #DEFAULT_PEER_ID} on 127.0.0.1:7848. */
    public Builder self(ReplicationPeer self) {
      this.self = Objects.requireNonNull(self, "self");
      return this;
    }

    /** Every member of the group, this one included. Not calling this means standalone. */
    public Builder peers(List<ReplicationPeer> peers) {
      Objects.requireNonNull(peers, "peers");
      if (peers.isEmpty()) {
        throw new IllegalArgumentException("peers must not be empty");
      }
      this.peers = List.copyOf(peers);
      return this;
    }

    public Builder groupName(String groupName) {
      Objects.requireNonNull(groupName, "groupName");
      if (groupName.isBlank()) {
        throw new IllegalArgumentException("group name must not be blank");
      }
      this.groupName = groupName;
      return this;
    }

    public Builder snapshotThresholdEntries(long entries) {
      this.snapshotThresholdEntries = atLeast("snapshot threshold entries", entries, 1);
      return this;
    }

    public Builder snapshotsRetained(int snapshots) {
      this.snapshotsRetained = (int) atLeast("snapshots retained", snapshots, 1);
      return this;
    }

    /** 1 turns group commit off: one command per Raft entry (for measurements). */
    public Builder maxBatchCommands(int commands) {
      this.maxBatchCommands = (int) atLeast("max batch commands", commands, 1);
      return this;
    }

    public Builder maxBatchBytes(int bytes) {
      this.maxBatchBytes = (int) atLeast("max batch bytes", bytes, 1);
      return this;
    }

    public Builder maxEntriesInFlight(int entries) {
      this.maxEntriesInFlight = (int) atLeast("max entries in flight", entries, 1);
      return this;
    }

    public Builder maxPendingSubmissions(int submissions) {
      this.maxPendingSubmissions = (int) atLeast("max pending submissions", submissions, 1);
      return this;
    }

    public Builder maxPendingBytes(long bytes) {
      this.maxPendingBytes = atLeast("max pending bytes", bytes, 1);
      return this;
    }

    public Builder maxCommandBytes(int bytes) {
      // Ratis refuses entries above 1 GiB of buffer; a command must also fit one gRPC message.
      if (bytes < 1 || bytes > (512 << 20)) {
        throw new IllegalArgumentException(
            "max command bytes must be between 1 and " + (512 << 20) + ", was " + bytes);
      }
      this.maxCommandBytes = bytes;
      return this;
    }

    public Builder logSegmentBytes(long bytes) {
      // Below 64 KiB Ratis spends its time rolling segments; tests use small ones to see purges.
      this.logSegmentBytes = atLeast("log segment bytes", bytes, 64 << 10);
      return this;
    }

    /** Election timeout range; the default depends on whether the group has one peer or more. */
    public Builder electionTimeout(Duration min, Duration max) {
      Objects.requireNonNull(min, "min");
      Objects.requireNonNull(max, "max");
      if (min.isNegative() || min.isZero()) {
        throw new IllegalArgumentException("election timeout must be positive, was " + min);
      }
      this.electionTimeoutMin = min;
      this.electionTimeoutMax = max;
      return this;
    }

    /** How long a follower waits for the leader to take a write or confirm a read barrier. */
    public Builder requestTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.toMillis() < 10) {
        throw new IllegalArgumentException(
            "request timeout must be at least 10 ms, was " + timeout);
      }
      this.requestTimeout = timeout;
      return this;
    }

    /**
     * How long a JVM pause (a full collection, a stopped process) Ratis tolerates before it shuts
     * the member down; default 10 s. Ratis's pause monitor notices the pause when the JVM runs
     * again.
     */
    public Builder pauseCloseThreshold(Duration threshold) {
      Objects.requireNonNull(threshold, "threshold");
      if (threshold.toMillis() < 100) {
        throw new IllegalArgumentException(
            "pause close threshold must be at least 100 ms, was " + threshold);
      }
      this.pauseCloseThreshold = threshold;
      return this;
    }

    /**
     * Runs the group-commit loop (encoding batches and handing them to Ratis). Any executor will
     * do: the replicator never has more than one drain task queued or running.
     */
    public Builder proposerExecutor(Executor executor) {
      this.proposerExecutor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Completes submitters' futures, so their continuations run here and never on Ratis's apply
     * thread. One task per applied batch; a slow continuation delays later completions but not
     * replication.
     */
    public Builder completionExecutor(Executor executor) {
      this.completionExecutor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    public ReplicationOptions build() {
      return new ReplicationOptions(this);
    }

    private static long atLeast(String what, long value, long min) {
      if (value < min) {
        throw new IllegalArgumentException(what + " must be at least " + min + ", was " + value);
      }
      return value;
    }
  }
}
