package io.sluice.server.replication;

import java.io.File;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * Every Ratis setting Sluice changes from Ratis's defaults, in one place, each with its reason.
 * What is not here is left at Ratis's default on purpose; notably fsync: {@code
 * raft.server.log.unsafe-flush.enabled} and {@code async-flush.enabled} stay false, so an entry
 * counts as flushed (and can commit) only after the segment file is forced to disk.
 */
final class RatisProperties {
  /** Room for the batch header and protobuf framing around the largest command. */
  private static final int ENTRY_OVERHEAD_BYTES = 64 << 10;

  /** How long a membership change may take, new members' catch-up included. */
  static final long MEMBERSHIP_CHANGE_MILLIS = 120_000;

  /**
   * A one-peer group's election timeouts after its first election, which keeps the options' short
   * one. Its leader has nobody to send heartbeats to or hear from, but Ratis's leader still wakes
   * up once per maximum timeout to check its leadership: at the start-up timeout that was 108
   * wake-ups and 11 ms of CPU a second on an idle server. Nothing in a one-peer group waits on
   * these (its commits are event-driven).
   */
  static final long STANDALONE_STEADY_TIMEOUT_MIN_MILLIS = 1_000;

  static final long STANDALONE_STEADY_TIMEOUT_MAX_MILLIS = 2_000;

  private RatisProperties() {}

  static RaftProperties from(ReplicationOptions options) {
    RaftProperties properties = new RaftProperties();

    RaftServerConfigKeys.setStorageDir(properties, List.of(options.dataDir().toFile()));
    if (options.standalone()) {
      // Nobody to talk to: no gRPC server, no port (see StandaloneTransport).
      RaftConfigKeys.Rpc.setType(properties, new StandaloneTransport());
    } else {
      // Ratis's gRPC, with a fix to the leader's appender (see PeerTransport).
      RaftConfigKeys.Rpc.setType(properties, new PeerTransport());
      GrpcConfigKeys.Server.setHost(properties, options.self().host());
      GrpcConfigKeys.Server.setPort(properties, options.self().port());
    }

    // Elections. A one-peer group elects itself as soon as the first timeout fires, so a short one
    // is the whole of the start-up delay; after that its leader only wakes up once per maximum
    // timeout to check a leadership nobody can contest, so the later ones are long (see above).
    // A cluster needs timeouts well above pauses, the first election included.
    TimeDuration min = millis(options.electionTimeoutMin().toMillis());
    TimeDuration max = millis(options.electionTimeoutMax().toMillis());
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(properties, min);
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(properties, max);
    if (options.standalone()) {
      RaftServerConfigKeys.Rpc.setTimeoutMin(
          properties, millis(STANDALONE_STEADY_TIMEOUT_MIN_MILLIS));
      RaftServerConfigKeys.Rpc.setTimeoutMax(
          properties, millis(STANDALONE_STEADY_TIMEOUT_MAX_MILLIS));
      // The pre-vote round only protects a cluster from a partitioned peer raising terms.
      RaftServerConfigKeys.LeaderElection.setPreVote(properties, false);
    } else {
      RaftServerConfigKeys.Rpc.setTimeoutMin(properties, min);
      RaftServerConfigKeys.Rpc.setTimeoutMax(properties, max);
      // A leader that finds no majority heard from within the election timeout steps down and
      // then sits out elections for this long (Ratis: 10 s). Seen after a kill -9 on a starved
      // core: the new leader took 2 s to set itself up, failed its first check for want of any
      // answer yet, and stepped down holding the newest entry (its term's first), so the other
      // survivor could not win either: no leader for 14 s. Two election timeouts; pre-vote keeps
      // a node cut off from the majority from disrupting anyone when it campaigns again.
      RaftServerConfigKeys.LeaderElection.setLeaderStepDownWaitTime(
          properties, millis(2 * options.electionTimeoutMax().toMillis()));
    }

    // The log-metadata entry (commit index) costs one more write and fsync per commit. It only
    // lets a restarted peer apply committed entries before a leader is elected; without it the
    // new leader's first entry commits them all again, so no acknowledged write depends on it.
    RaftServerConfigKeys.Log.setLogMetadataEnabled(properties, false);

    // Entry size limits: a single command of maxCommandBytes must fit in one entry. Ratis demands
    // write buffer >= appender buffer byte-limit + 8, and the write buffer is resident memory.
    int maxEntryBytes =
        Math.max(options.maxBatchBytes(), options.maxCommandBytes()) + ENTRY_OVERHEAD_BYTES;
    RaftServerConfigKeys.Log.Appender.setBufferByteLimit(
        properties, SizeInBytes.valueOf(maxEntryBytes));
    RaftServerConfigKeys.Log.setWriteBufferSize(properties, SizeInBytes.valueOf(maxEntryBytes + 8));
    GrpcConfigKeys.setMessageSizeMax(properties, SizeInBytes.valueOf(maxEntryBytes * 2));

    // Segments: purge works on whole closed segments, so their size is the granularity of disk
    // reclaimed. (An entry larger than a segment is still written: it overfills the segment.)
    // Preallocation must not exceed a segment. Keep at most two closed segments in memory: reads
    // of old entries are rare (replay, lagging follower).
    long segmentBytes = options.logSegmentBytes();
    RaftServerConfigKeys.Log.setSegmentSizeMax(properties, SizeInBytes.valueOf(segmentBytes));
    RaftServerConfigKeys.Log.setPreallocatedSize(
        properties, SizeInBytes.valueOf(Math.min(4L << 20, segmentBytes)));
    RaftServerConfigKeys.Log.setSegmentCacheNumMax(properties, 2);
    RaftServerConfigKeys.Log.setSegmentCacheSizeMax(
        properties, SizeInBytes.valueOf(Math.max(32L << 20, 2 * segmentBytes)));

    // Snapshots: ours, every snapshotThresholdEntries entries, and on a clean stop.
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(
        properties, options.snapshotThresholdEntries());
    RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(properties, true);
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(properties, options.snapshotsRetained());
    // Purge after each snapshot, but keep one threshold's worth of entries behind it: if the newest
    // snapshot turns out damaged at the next start, the previous one plus this log still rebuild
    // every acknowledged write. Disk stays bounded by about two thresholds of log.
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(properties, true);
    RaftServerConfigKeys.Log.setPurgePreservationLogNum(
        properties, options.snapshotThresholdEntries());
    RaftServerConfigKeys.Log.setPurgeGap(
        properties, (int) Math.min(1024, options.snapshotThresholdEntries()));

    // Pending writes inside Ratis are bounded by our own maxEntriesInFlight; these only need to be
    // above it. The retry cache is for clients that resend; our in-process submissions never do,
    // so entries need not live the default minute (each one is heap).
    RaftServerConfigKeys.Write.setElementLimit(
        properties, Math.max(64, 4 * options.maxEntriesInFlight()));
    RaftServerConfigKeys.Write.setByteLimit(
        properties,
        SizeInBytes.valueOf(
            Math.max(64L << 20, 2L * options.maxEntriesInFlight() * maxEntryBytes)));
    RaftServerConfigKeys.RetryCache.setExpiryTime(properties, TimeDuration.ONE_SECOND);

    if (!options.standalone()) {
      // A follower forwards a batch to the leader through a Ratis client, which resends it after
      // a lost answer or to a new leader. Every peer fills the retry cache as it applies, so a
      // resend is recognised as long as the cache outlives the client's retries (see
      // forwardingClientProperties): one cache entry per batch, not per write.
      RaftServerConfigKeys.RetryCache.setExpiryTime(
          properties, TimeDuration.valueOf(30, TimeUnit.SECONDS));
      // Read barriers are Ratis's ReadIndex (Raft paper 6.4): the leader confirms it still leads
      // with one heartbeat round, the follower waits until it has applied that far.
      RaftServerConfigKeys.Read.setOption(
          properties, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
      RaftServerConfigKeys.Read.setTimeout(properties, millis(options.requestTimeout().toMillis()));
      RaftServerConfigKeys.Rpc.setRequestTimeout(
          properties, millis(options.requestTimeout().toMillis()));
      // The leader resends to a follower that does not answer as fast as it can until the follower
      // counts as slow (60 s by default): hundreds of failed sends and warnings a second while a
      // node is down. Slow after a few election timeouts, it is tried once per heartbeat.
      RaftServerConfigKeys.Rpc.setSlownessTimeout(
          properties, millis(3 * options.electionTimeoutMax().toMillis()));
    }

    // Threads: Ratis's pools default to dozens of cached threads; the whole server runs in ~200 MB
    // on 2 cores. Cached pools still grow under bursts, but to these bounds only.
    RaftServerConfigKeys.ThreadPool.setProxyCached(properties, true);
    RaftServerConfigKeys.ThreadPool.setProxySize(properties, 2);
    RaftServerConfigKeys.ThreadPool.setServerCached(properties, true);
    RaftServerConfigKeys.ThreadPool.setServerSize(properties, 4);
    RaftServerConfigKeys.ThreadPool.setClientCached(properties, true);
    RaftServerConfigKeys.ThreadPool.setClientSize(properties, 4);
    GrpcConfigKeys.Server.setAsyncRequestThreadPoolCached(properties, true);
    GrpcConfigKeys.Server.setAsyncRequestThreadPoolSize(properties, 4);

    // A JVM pause longer than this makes Ratis's pause monitor shut the member down (Ratis's
    // default
    // is a minute); the server's supervision restarts it in-process (StartingReplicator).
    RaftServerConfigKeys.setCloseThreshold(
        properties, millis(options.pauseCloseThreshold().toMillis()));
    return properties;
  }

  /**
   * Properties of the client a follower forwards writes through: each attempt bounded by the
   * election timeout (a leader that does not answer by then is being replaced); when and until when
   * it tries again is {@link ForwardingRetryPolicy}.
   */
  static RaftProperties forwardingClientProperties(ReplicationOptions options) {
    RaftProperties properties = new RaftProperties();
    RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
    RaftClientConfigKeys.Rpc.setRequestTimeout(
        properties, millis(options.electionTimeoutMax().toMillis()));
    // An ordered client's first request is otherwise a "dummy" watch that everything behind it
    // waits for, up to the watch timeout (10 s), when the leader it was aimed at is gone.
    RaftClientConfigKeys.Async.Experimental.setSendDummyRequest(properties, false);
    RaftClientConfigKeys.Rpc.setWatchRequestTimeout(
        properties, millis(options.requestTimeout().toMillis()));
    RaftClientConfigKeys.Async.setOutstandingRequestsMax(
        properties, Math.max(16, 4 * options.maxEntriesInFlight()));
    GrpcConfigKeys.setMessageSizeMax(
        properties,
        SizeInBytes.valueOf(
            2
                * (Math.max(options.maxBatchBytes(), options.maxCommandBytes())
                    + ENTRY_OVERHEAD_BYTES)));
    return properties;
  }

  /**
   * Properties of the client a membership change goes through: the leader answers only once the new
   * members have caught up and the new configuration is committed, which takes as long as copying
   * the state to them.
   */
  static RaftProperties membershipClientProperties(ReplicationOptions options) {
    RaftProperties properties = forwardingClientProperties(options);
    RaftClientConfigKeys.Rpc.setRequestTimeout(properties, millis(MEMBERSHIP_CHANGE_MILLIS));
    return properties;
  }

  /** Attempts of a membership change: it follows redirects to the leader, a few times. */
  static RetryPolicy membershipRetryPolicy(ReplicationOptions options) {
    return RetryPolicies.retryUpToMaximumCountWithFixedSleep(
        10, millis(Math.max(100, options.electionTimeoutMax().toMillis())));
  }

  /** The directory Ratis keeps a group's log and state machine files in. */
  static File groupDirectory(ReplicationOptions options, String groupUuid) {
    return options.dataDir().resolve(groupUuid).toFile();
  }

  private static TimeDuration millis(long millis) {
    return TimeDuration.valueOf(millis, TimeUnit.MILLISECONDS);
  }
}
