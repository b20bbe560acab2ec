package io.sluice.server.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;

class RatisPropertiesTest {
  private final Path dataDir = Path.of("target", "ratis-properties-test");

  @Test
  void aStandaloneLeaderIsElectedAtOnceButChecksItsLeadershipOnlyEverySecondOrTwo() {
    RaftProperties properties = RatisProperties.from(ReplicationOptions.builder(dataDir).build());

    // The first election, the whole of the start-up delay, keeps the short timeout.
    assertThat(millis(RaftServerConfigKeys.Rpc.firstElectionTimeoutMax(properties)))
        .isEqualTo(2 * ReplicationOptions.DEFAULT_STANDALONE_ELECTION_TIMEOUT.toMillis());
    // The leader's event processor polls for this long between idle checks.
    assertThat(millis(RaftServerConfigKeys.Rpc.timeoutMin(properties)))
        .isGreaterThanOrEqualTo(1_000);
    assertThat(millis(RaftServerConfigKeys.Rpc.timeoutMax(properties)))
        .isGreaterThanOrEqualTo(2_000);
  }

  @Test
  void aClusterKeepsItsElectionTimeoutsAfterTheFirstElection() {
    ReplicationPeer self = new ReplicationPeer("a", "127.0.0.1", 7848);
    RaftProperties properties =
        RatisProperties.from(
            ReplicationOptions.builder(dataDir)
                .self(self)
                .peers(List.of(self, new ReplicationPeer("b", "127.0.0.2", 7848)))
                .build());

    assertThat(millis(RaftServerConfigKeys.Rpc.timeoutMin(properties)))
        .isEqualTo(ReplicationOptions.DEFAULT_CLUSTER_ELECTION_TIMEOUT_MIN.toMillis());
    assertThat(millis(RaftServerConfigKeys.Rpc.timeoutMax(properties)))
        .isEqualTo(ReplicationOptions.DEFAULT_CLUSTER_ELECTION_TIMEOUT_MAX.toMillis());
  }

  private static long millis(org.apache.ratis.util.TimeDuration d) {
    return d.toLong(TimeUnit.MILLISECONDS);
  }
}
