/**
 * Replication and the durable store of sluice-server, on Apache Ratis.
 *
 * <p>Other packages see four types: {@link io.sluice.server.replication.ReplicatedState} (what a
 * piece of state implements), {@link io.sluice.server.replication.Replicator} (submit a command,
 * get its outcome once durable and applied), {@link io.sluice.server.replication.RatisReplicator}
 * (the implementation, started from {@link io.sluice.server.replication.ReplicationOptions}) and
 * the exceptions a submission can fail with. The rest is package-private.
 *
 * <h2>Write path</h2>
 *
 * <pre>
 * submit ──► BatchProposer queue (bounded) ──► proposer thread: N commands → 1 Raft entry
 *        ──► RaftServer.submitClientRequestAsync (in-process) ──► log append + fdatasync
 *        ──► commit ──► apply thread: ReplicationStateMachine applies each command to its state
 *        ──► outcomes → completion thread ──► submitter's future
 * </pre>
 *
 * <h2>Threads</h2>
 *
 * Added by a standalone replicator (measured: 8): Ratis's log worker, apply thread
 * (StateMachineUpdater), leader state, segment-cache eviction, JVM pause monitor, client and impl
 * pool threads (cached, bounded to 4), plus our proposer and completion threads. No thread is
 * started per write. A cluster adds the gRPC transport's threads and one log appender per follower.
 *
 * <h2>On disk, under {@code ReplicationOptions.dataDir()}</h2>
 *
 * <pre>
 * &lt;group-uuid&gt;/current/log_&lt;first&gt;-&lt;last&gt;      closed Raft log segments (Ratis format)
 * &lt;group-uuid&gt;/current/log_inprogress_&lt;first&gt;  the open segment
 * &lt;group-uuid&gt;/current/raft-meta             term and vote (Ratis)
 * &lt;group-uuid&gt;/sm/snapshot-&lt;term&gt;-&lt;index&gt;.bin  our snapshots, newest few (SnapshotFile)
 * &lt;group-uuid&gt;/sm/*.corrupt                   snapshots refused at start, kept for inspection
 * </pre>
 *
 * The group UUID is derived from {@code ReplicationOptions.groupName()}.
 */
package io.sluice.server.replication;
