package io.sluice.server.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Test;

class RatisPropertiesTest {
  private final Path dataDir = Path.of("data", "ratis");

  @Test
  void aOnePeerGroupElectsItselfAtOnceThenChecksItsLeadershipOnlyEverySecondOrSo() {
    RaftProperties properties = RatisProperties.from(ReplicationOptions.builder(dataDir).build());

    assertThat(millis(RaftServerConfigKeys.Rpc.firstElectionTimeoutMin(properties)))
        .as("the first election is the whole of the start-up delay")
        .isEqualTo(ReplicationOptions.DEFAULT_STANDALONE_ELECTION_TIMEOUT.toMillis());
    assertThat(millis(RaftServerConfigKeys.Rpc.firstElectionTimeoutMax(properties)))
        .isEqualTo(2 * ReplicationOptions.DEFAULT_STANDALONE_ELECTION_TIMEOUT.toMillis());
    // The leader wakes up once per maximum timeout; at the start-up timeout that was ~100 times a
    // second on an idle server.
    assertThat(millis(RaftServerConfigKeys.Rpc.timeoutMin(properties))).isEqualTo(1_000);
    assertThat(millis(RaftServerConfigKeys.Rpc.timeoutMax(properties))).isEqualTo(2_000);
  }

  @Test
  void aClusterUsesItsElectionTimeoutsFromTheFirstElectionOn() {
    ReplicationPeer self = new ReplicationPeer("a", "127.0.0.1", 7848);
    ReplicationOptions options =
        ReplicationOptions.builder(dataDir)
            .self(self)
            .peers(List.of(self, new ReplicationPeer("b", "127.0.0.2", 7848)))
            .build();
    RaftProperties properties = RatisProperties.from(options);

    long min = options.electionTimeoutMin().toMillis();
    long max = options.electionTimeoutMax().toMillis();
    assertThat(millis(RaftServerConfigKeys.Rpc.firstElectionTimeoutMin(properties))).isEqualTo(min);
    assertThat(millis(RaftServerConfigKeys.Rpc.firstElectionTimeoutMax(properties))).isEqualTo(max);
    assertThat(millis(RaftServerConfigKeys.Rpc.timeoutMin(properties))).isEqualTo(min);
    assertThat(millis(RaftServerConfigKeys.Rpc.timeoutMax(properties))).isEqualTo(max);
  }

  private static long millis(TimeDuration duration) {
    return duration.toLong(TimeUnit.MILLISECONDS);
  }
}
