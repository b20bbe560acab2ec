package io.sluice.server.replication;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.grpc.server.GrpcLogAppender;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;
import org.apache.ratis.server.raftlog.RaftLogIOException;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis transport between the peers of a cluster: Ratis's gRPC transport, with one fix to how
 * the leader feeds a follower that fell behind its purged log.
 *
 * <p><b>The defect (Ratis 3.2.2, fixed upstream by RATIS-2487 and RATIS-2499, not released).</b>
 * The leader's appender decides whether a follower needs a snapshot, then builds the next append
 * from the follower's next index. A failed append (the follower is down) resets that index to the
 * follower's last acknowledged entry plus one, on another thread, at any moment; when the entry
 * before it has been purged and is not the snapshot's last, building the append throws ("Previous
 * TermIndex not found"), the appender thread dies and is not restarted, and the follower never
 * hears from that leader again: it cannot rejoin until the leader changes. {@code ClusterIT} met it
 * on a node restarted during a rolling restart, under writes, with frequent snapshots.
 *
 * <p><b>The fix here.</b> The appender also sends a snapshot when the entry before the follower's
 * next one is gone from the log and the snapshot covers it (what RATIS-2487 adds), and an append
 * that cannot be built for that reason is skipped instead of killing the thread: the next round
 * sends the snapshot.
 *
 * <p><b>Commit heartbeats.</b> A follower applies an entry once it learns that the entry committed,
 * from the commit index the leader puts in its next append. Ratis 3.2.2 sends an append only for
 * new entries or on the heartbeat (half the lower election timeout: 250 ms by default); when the
 * commit index advances with nothing new to send, its appender wakes, finds nothing to send, and
 * goes back to sleep. So an entry that nothing follows reached the followers' state (and their
 * subscribers, and a follower's forwarded write its acknowledgement) up to 250 ms late. Here the
 * appender sends a heartbeat at once instead, whenever the commit index the follower can take (the
 * leader's, capped at what the follower holds) passed the one it knows: one small message, no log
 * entry and no fsync, with no more safety at stake than any heartbeat (the follower checks the
 * previous entry and caps the commit at its own log, as Raft's heartbeats do). Ratis does the same
 * after a ReadIndex answer.
 *
 * <p>Ratis instantiates this class by name ({@code raft.rpc.type}), hence the public constructor.
 */
final class PeerTransport implements RpcType {
  private static final Logger log = LoggerFactory.getLogger(PeerTransport.class);

  public PeerTransport() {}

  @Override
  public String name() {
    return PeerTransport.class.getName();
  }

  @Override
  public RpcFactory newFactory(Parameters parameters) {
    return new Factory(parameters);
  }

  private static final class Factory extends GrpcFactory {
    Factory(Parameters parameters) {
      super(parameters);
    }

    @Override
    public LogAppender newLogAppender(
        RaftServer.Division server, LeaderState state, FollowerInfo follower) {
      return new Appender(server, state, follower);
    }
  }

  private static final class Appender extends GrpcLogAppender {
    /** When the skipped-append line was last logged, for one line a minute at most. */
    private final AtomicLong lastSkipLoggedNanos = new AtomicLong(System.nanoTime());

    /** Appends skipped so far (read and written under the appender's lock). */
    private long skipsLogged;

    /**
     * The commit index the last commit heartbeat could give the follower (written on the appender
     * thread under its lock); one heartbeat per advance, however often the appender wakes before
     * the answer.
     */
    private volatile long commitAnnounced = -1;

    Appender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
      super(server, state, follower);
    }

    @Override
    public SnapshotInfo shouldInstallSnapshot() {
      SnapshotInfo snapshot = super.shouldInstallSnapshot();
      if (snapshot != null) {
        return snapshot;
      }
      long next = getFollower().getNextIndex();
      if (next <= 0 || next >= getRaftLog().getNextIndex()) {
        return null;
      }
      SnapshotInfo latest = getServer().getStateMachine().getLatestSnapshot();
      if (latest != null
          && latest.getIndex() >= next
          && getRaftLog().getTermIndex(next - 1) == null) {
        return latest;
      }
      return null;
    }

    @Override
    public AppendEntriesRequestProto newAppendEntriesRequest(long callId, boolean heartbeat)
        throws RaftLogIOException {
      AppendEntriesRequestProto request;
      try {
        request = super.newAppendEntriesRequest(callId, heartbeat);
      } catch (NullPointerException e) {
        if (e.getMessage() == null || !e.getMessage().contains("Previous TermIndex not found")) {
          throw e;
        }
        long now = System.nanoTime();
        long last = lastSkipLoggedNanos.get();
        if ((skipsLogged++ == 0 || now - last > TimeUnit.MINUTES.toNanos(1))
            && lastSkipLoggedNanos.compareAndSet(last, now)) {
          log.info(
              "{}: the follower is behind the purged log; sending it a snapshot instead",
              getFollower().getName());
        }
        return null;
      }
      if (request == null && !heartbeat) {
        return commitHeartbeat(callId);
      }
      return request;
    }

    /**
     * A heartbeat when the follower can now commit further than it told us and no commit heartbeat
     * has offered it that far yet; else null (nothing to send). Not while appends to it are in
     * flight: a heartbeat then names no previous entry, so the follower could not commit from it,
     * and the answer to those appends wakes the appender again.
     */
    private AppendEntriesRequestProto commitHeartbeat(long callId) throws RaftLogIOException {
      long takeable = commitTakeable();
      if (takeable <= getFollower().getCommitIndex()
          || takeable <= commitAnnounced
          || hasPendingDataRequests()) {
        return null;
      }
      commitAnnounced = takeable;
      return super.newAppendEntriesRequest(callId, true);
    }

    /**
     * No wait when a commit heartbeat is due and nothing else is to be sent. Ratis's appender
     * sleeps between rounds on a signal that is lost when it comes while the appender is busy
     * (sending the previous append, say): a commit that advanced then would otherwise wait for the
     * heartbeat after all. New entries need no such help: Ratis's own wait time is zero for them.
     */
    @Override
    public long getWaitTimeMs() {
      if (!hasAppendEntries() && !hasPendingDataRequests()) {
        long takeable = commitTakeable();
        if (takeable > getFollower().getCommitIndex() && takeable > commitAnnounced) {
          return 0;
        }
      }
      return super.getWaitTimeMs();
    }

    /** How far the follower could commit now: the leader's commit, capped at what it holds. */
    private long commitTakeable() {
      return Math.min(getRaftLog().getLastCommittedIndex(), getFollower().getMatchIndex());
    }
  }
}
