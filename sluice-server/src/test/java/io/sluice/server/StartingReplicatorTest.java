package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StartingReplicatorTest {
  @Test
  void aFailedRestartIsTriedAgainAfterOneSecondThenTwiceAsLongUpToThirtySeconds() {
    assertThat(StartingReplicator.retryMillis(1)).isEqualTo(1_000);
    assertThat(StartingReplicator.retryMillis(2)).isEqualTo(2_000);
    assertThat(StartingReplicator.retryMillis(3)).isEqualTo(4_000);
    assertThat(StartingReplicator.retryMillis(5)).isEqualTo(16_000);
    assertThat(StartingReplicator.retryMillis(6)).isEqualTo(30_000);
    assertThat(StartingReplicator.retryMillis(1_000)).isEqualTo(30_000);
  }
}
