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
      try {
        return super.newAppendEntriesRequest(callId, heartbeat);
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
    }
  }
}
