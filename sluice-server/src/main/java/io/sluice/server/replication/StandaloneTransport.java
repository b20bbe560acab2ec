package io.sluice.server.replication;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Collection;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotReplyProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteReplyProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionReplyProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerRpc;
import org.apache.ratis.server.ServerFactory;

/**
 * The Ratis transport of a one-peer group: there is no other peer to send votes or entries to, and
 * our writes arrive in-process, so nothing listens on the network. Compared with Ratis's gRPC
 * transport this skips loading and starting a shaded gRPC/Netty server (about a third of a cold
 * start, plus its event-loop thread and buffer pools) and binds no port. Groups of several peers
 * use gRPC.
 *
 * <p>Ratis instantiates this class by name ({@code raft.rpc.type}), hence the public constructor.
 */
final class StandaloneTransport implements RpcType {
  public StandaloneTransport() {}

  @Override
  public String name() {
    return StandaloneTransport.class.getName();
  }

  @Override
  public RpcFactory newFactory(Parameters parameters) {
    return new Factory();
  }

  private static final class Factory implements ServerFactory {
    @Override
    public RpcType getRpcType() {
      return new StandaloneTransport();
    }

    @Override
    public RaftServerRpc newRaftServerRpc(RaftServer server) {
      return new NoPeersRpc();
    }
  }

  /** Refuses every peer-to-peer call: in a one-peer group none is ever made. */
  private static final class NoPeersRpc implements RaftServerRpc {
    @Override
    public void start() {}

    @Override
    public void close() {}

    @Override
    public InetSocketAddress getInetSocketAddress() {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    @Override
    public RpcType getRpcType() {
      return new StandaloneTransport();
    }

    @Override
    public void addRaftPeers(Collection<RaftPeer> peers) {
      // Ratis registers every group member, this peer included; RatisReplicator picks this
      // transport only when the group has this one member.
    }

    @Override
    public void handleException(RaftPeerId peer, Exception e, boolean reconnect) {}

    @Override
    public RequestVoteReplyProto requestVote(RequestVoteRequestProto request) throws IOException {
      throw noPeers();
    }

    @Override
    public AppendEntriesReplyProto appendEntries(AppendEntriesRequestProto request)
        throws IOException {
      throw noPeers();
    }

    @Override
    public InstallSnapshotReplyProto installSnapshot(InstallSnapshotRequestProto request)
        throws IOException {
      throw noPeers();
    }

    @Override
    public StartLeaderElectionReplyProto startLeaderElection(
        StartLeaderElectionRequestProto request) throws IOException {
      throw noPeers();
    }

    private IOException noPeers() {
      return new IOException("this peer runs standalone: there are no other peers to talk to");
    }
  }
}
