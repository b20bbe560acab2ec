package io.sluice.bench.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class SentinelPairedCpuTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void aWindowSentOnTimeAndFullyAnsweredCounts() {
    assertThat(SentinelPairedCpu.counts(6, 6 * SECOND, 6 * SECOND + SECOND / 100, 6000, 6000))
        .isTrue();
  }

  @Test
  void aWindowWhoseDriverFellBehindTheRateDoesNotCount() {
    // 6,000 requests sent over 6.5 s: 923/s of the 1,000 asked.
    assertThat(SentinelPairedCpu.counts(6, 6 * SECOND + SECOND / 2, 7 * SECOND, 6000, 6000))
        .isFalse();
  }

  @Test
  void aWindowWithAnUnansweredRequestDoesNotCount() {
    assertThat(SentinelPairedCpu.counts(6, 6 * SECOND, 6 * SECOND, 6000, 5999)).isFalse();
  }

  @Test
  void aWindowThatDrainedABacklogAfterItsLastSendDoesNotCount() {
    assertThat(SentinelPairedCpu.counts(6, 6 * SECOND, 7 * SECOND + 1, 6000, 6000)).isFalse();
  }

  @Test
  void theModesMayPairASecondBaselineForTheFloor() {
    SentinelPairedCpu.checkModes(List.of("baseline", "baseline-copy", "sentinel-stats"));
  }

  @Test
  void theModesStartWithTheBaselineAndNameEachConfigurationOnce() {
    assertThatThrownBy(() -> SentinelPairedCpu.checkModes(List.of("sentinel-stats", "baseline")))
        .hasMessageContaining("starts with baseline");
    assertThatThrownBy(() -> SentinelPairedCpu.checkModes(List.of("baseline")))
        .hasMessageContaining("at least one more");
    assertThatThrownBy(
            () -> SentinelPairedCpu.checkModes(List.of("baseline", "sluice-stats", "sluice-stats")))
        .hasMessageContaining("twice");
    assertThatThrownBy(() -> SentinelPairedCpu.checkModes(List.of("baseline", "sluice-fast")))
        .hasMessageContaining("unknown mode sluice-fast");
  }
}
