package io.sluice.server;

import io.sluice.server.cluster.http.MembershipChanges;
import io.sluice.server.replication.GroupStatus;
import io.sluice.server.replication.ReplicationPeer;
import io.sluice.server.replication.ReplicatorNotReadyException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Membership changes of a cluster node, as its store's Raft configuration changes: a node named by
 * its HTTP address ({@code host:port}) is the peer {@code host_port} on Raft port {@code port − the
 * Raft offset}, as at start (every node must use the same offset).
 */
final class StoreMembershipChanges implements MembershipChanges {
  private final ServerOptions options;
  private final StartingReplicator replicator;

  StoreMembershipChanges(ServerOptions options, StartingReplicator replicator) {
    this.options = options;
    this.replicator = replicator;
  }

  @Override
  public CompletableFuture<List<String>> add(String address) {
    return change(address, true);
  }

  @Override
  public CompletableFuture<List<String>> remove(String address) {
    return change(address, false);
  }

  private CompletableFuture<List<String>> change(String address, boolean add) {
    ClusterMember member;
    try {
      member = ClusterMember.parse(address);
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (options.raftPortOf(member.port()) < 1) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(
              "port "
                  + member.port()
                  + " leaves no Raft port below it (Raft offset "
                  + options.raftPortOffset()
                  + ")"));
    }
    GroupStatus status = replicator.groupStatus().orElse(null);
    if (status == null) {
      return CompletableFuture.failedFuture(
          new ReplicatorNotReadyException("the store is starting"));
    }
    List<ClusterMember> next = new ArrayList<>();
    boolean present = false;
    for (GroupStatus.Peer peer : status.peers()) {
      ClusterMember current = ClusterMember.ofPeerId(peer.id());
      if (current.equals(member)) {
        present = true;
        if (add) {
          next.add(current);
        }
      } else {
        next.add(current);
      }
    }
    if (add && present) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(address + " is already a member of the cluster"));
    }
    if (!add && !present) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(address + " is not a member of the cluster"));
    }
    if (add) {
      next.add(member);
    }
    if (next.isEmpty()) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("the last member of a cluster cannot be removed"));
    }
    List<ReplicationPeer> peers = new ArrayList<>();
    for (ClusterMember kept : next) {
      peers.add(new ReplicationPeer(kept.peerId(), kept.host(), options.raftPortOf(kept.port())));
    }
    return replicator
        .changeMembers(peers)
        .thenApply(changed -> next.stream().map(ClusterMember::address).toList());
  }
}
