package io.sluice.server.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.testing.FreePorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A follower's forwarding clients across a leader change, with real Ratis clients aimed at peers
 * that are not there (so every request stays in flight, retrying, as toward a leader just killed).
 */
class LeaderForwardingTest {
  private final List<ReplicationPeer> peers =
      List.of(
          new ReplicationPeer("a", "127.0.0.1", FreePorts.unusedPort()),
          new ReplicationPeer("b", "127.0.0.1", FreePorts.unusedPort()),
          new ReplicationPeer("c", "127.0.0.1", FreePorts.unusedPort()));
  private final ReplicationOptions options =
      ReplicationOptions.builder(Path.of("unused"))
          .self(peers.get(2))
          .peers(peers)
          .requestTimeout(Duration.ofSeconds(30))
          .build();
  private final List<RaftPeerId> builtFor = new ArrayList<>();
  private final LeaderForwarding forwarding = new LeaderForwarding(this::client, Runnable::run);

  @AfterEach
  void close() {
    forwarding.close();
  }

  @Test
  void aLeaderChangeTellsTheRequestsInFlightOnceAndSendsTheNextBatchToTheNewLeader() {
    AtomicInteger firstOutdated = new AtomicInteger();
    AtomicInteger secondOutdated = new AtomicInteger();
    CompletableFuture<RaftClientReply> first = send(peer("a"), firstOutdated);
    CompletableFuture<RaftClientReply> second = send(peer("a"), secondOutdated);
    assertThat(builtFor).as("one client for both").containsExactly(peer("a"));

    forwarding.leaderChanged(peer("b"));
    forwarding.leaderChanged(peer("b"));

    assertThat(firstOutdated).as("told once").hasValue(1);
    assertThat(secondOutdated).hasValue(1);
    assertThat(first).as("the request itself goes on").isNotDone();
    assertThat(second).isNotDone();

    AtomicInteger thirdOutdated = new AtomicInteger();
    CompletableFuture<RaftClientReply> third = send(peer("b"), thirdOutdated);
    assertThat(builtFor)
        .as("a new client, aimed at the new leader")
        .containsExactly(peer("a"), peer("b"));
    assertThat(third).isNotDone();
    assertThat(thirdOutdated).as("a request on the new leader's client is current").hasValue(0);
  }

  @Test
  void aNoticeOfNoLeaderOrOfTheSameLeaderChangesNothing() {
    AtomicInteger outdated = new AtomicInteger();
    send(peer("a"), outdated);

    forwarding.leaderChanged(null);
    forwarding.leaderChanged(peer("a"));
    send(peer("a"), new AtomicInteger());

    assertThat(outdated).hasValue(0);
    assertThat(builtFor).containsExactly(peer("a"));
  }

  @Test
  void aLeaderChangeNoticedOnlyWhenTheNextBatchIsSentStillTellsTheRequestsInFlight() {
    AtomicInteger outdated = new AtomicInteger();
    send(peer("a"), outdated);

    send(peer("b"), new AtomicInteger());

    assertThat(outdated).hasValue(1);
    assertThat(builtFor).containsExactly(peer("a"), peer("b"));
  }

  private CompletableFuture<RaftClientReply> send(RaftPeerId knownLeader, AtomicInteger outdated) {
    return forwarding.send(
        Message.valueOf("batch"), knownLeader, 30_000, outdated::incrementAndGet);
  }

  private RaftClient client(RaftPeerId leader) {
    builtFor.add(leader);
    List<RaftPeer> raftPeers = new ArrayList<>();
    for (ReplicationPeer peer : peers) {
      raftPeers.add(RaftPeer.newBuilder().setId(peer.id()).setAddress(peer.address()).build());
    }
    return RaftClient.newBuilder()
        .setClientId(ClientId.randomId())
        .setRaftGroup(RaftGroup.valueOf(RatisReplicator.groupIdFor("sluice"), raftPeers))
        .setLeaderId(leader)
        .setProperties(RatisProperties.forwardingClientProperties(options))
        .setRetryPolicy(
            ForwardingRetryPolicy.of(options, () -> null, leader, new ForwardingFailureLog()))
        .build();
  }

  private static RaftPeerId peer(String id) {
    return RaftPeerId.valueOf(id);
  }
}
