package io.sluice.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplicationOptionsTest {
  private final Path dataDir = Path.of("data", "ratis");

  @Test
  void defaultsToAStandalonePeerOnTheRatisPort() {
    ReplicationOptions options = ReplicationOptions.builder(dataDir).build();

    assertThat(options.standalone()).isTrue();
    assertThat(options.peers()).containsExactly(options.self());
    assertThat(options.self().address()).isEqualTo("127.0.0.1:7848");
    assertThat(options.electionTimeoutMin())
        .isEqualTo(ReplicationOptions.DEFAULT_STANDALONE_ELECTION_TIMEOUT);
    assertThat(options.proposerExecutor()).isEmpty();
  }

  @Test
  void usesLongerElectionTimeoutsForAGroupOfSeveralPeers() {
    ReplicationPeer self = new ReplicationPeer("a", "127.0.0.1", 7848);
    ReplicationOptions options =
        ReplicationOptions.builder(dataDir)
            .self(self)
            .peers(List.of(self, new ReplicationPeer("b", "10.0.0.2", 7848)))
            .build();

    assertThat(options.standalone()).isFalse();
    assertThat(options.electionTimeoutMin())
        .isEqualTo(ReplicationOptions.DEFAULT_CLUSTER_ELECTION_TIMEOUT_MIN);
  }

  @Test
  void refusesPeersThatLeaveThisPeerOut() {
    ReplicationOptions.Builder builder =
        ReplicationOptions.builder(dataDir)
            .peers(List.of(new ReplicationPeer("other", "127.0.0.1", 7849)));

    assertThatThrownBy(builder::build).hasMessageContaining("must include this peer");
  }

  @Test
  void refusesValuesOutsideTheirRange() {
    ReplicationOptions.Builder builder = ReplicationOptions.builder(dataDir);

    assertThatThrownBy(() -> builder.maxBatchCommands(0))
        .hasMessage("max batch commands must be at least 1, was 0");
    assertThatThrownBy(() -> builder.snapshotThresholdEntries(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> builder.logSegmentBytes(1024))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> builder.electionTimeout(Duration.ZERO, Duration.ofMillis(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ReplicationPeer("has space", "h", 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> builder.maxPendingBytes(1024).maxCommandBytes(2048).build())
        .hasMessageContaining("must hold at least one command");
  }
}
