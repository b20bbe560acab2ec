package io.sluice.flow.internal.stats;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.flow.ResourceStatistics;
import io.sluice.flow.WindowStatistics;
import org.junit.jupiter.api.Test;

class LiveStatisticsTest {

  private static final long MS = 1_000_000L;
  private static final long SECOND = 1000 * MS;

  @Test
  void countsEachHundredMillisecondSubWindowAndTheLastCompleteSecond() {
    LiveStatistics stats = new LiveStatistics("r");
    long t = 50 * SECOND;
    for (int tick = 0; tick < 10; tick++) {
      long at = t + tick * 100 * MS + 10 * MS;
      for (int i = 0; i <= tick; i++) {
        stats.recordPass(at);
        stats.recordCompletion(2 * MS, i == 0);
      }
      stats.recordBlock(at);
    }
    ResourceStatistics s = stats.snapshot(t + SECOND + 5 * MS, 0);
    assertThat(s.subWindows()).hasSize(10);
    for (int tick = 0; tick < 10; tick++) {
      WindowStatistics w = s.subWindows().get(tick);
      assertThat(w.passed()).isEqualTo(tick + 1);
      assertThat(w.blocked()).isEqualTo(1);
      assertThat(w.failed()).isEqualTo(1);
      assertThat(w.completed()).isEqualTo(tick + 1);
    }
    assertThat(s.lastSecond().passed()).isEqualTo(55);
    assertThat(s.lastSecond().blocked()).isEqualTo(10);
    assertThat(s.lastSecond().succeeded()).isEqualTo(45);
    assertThat(s.lastSecond().averageRtNanos()).isEqualTo(2.0 * MS);
    assertThat(s.lastSecond().rtMaxNanos()).isEqualTo(2 * MS);
    assertThat((double) s.lastSecond().percentileNanos(0.99)).isBetween(1.76e6, 2.24e6);
    assertThat(s.total().passed()).isEqualTo(55);
  }

  @Test
  void reportsAnIdleResourceCorrectlyWithoutAnyBackgroundWork() {
    LiveStatistics stats = new LiveStatistics("r");
    long t = 50 * SECOND;
    for (int i = 0; i < 7; i++) {
      stats.recordPass(t + 30 * MS);
    }
    // No call since: the tick of those passes is still only in the live counters.
    ResourceStatistics later = stats.snapshot(t + 500 * MS, 0);
    assertThat(later.lastSecond().passed()).isEqualTo(7);
    assertThat(later.subWindows().get(4).passed()).isEqualTo(0);
    assertThat(later.subWindows().get(5).passed()).isEqualTo(7);
    assertThat(later.subWindows().get(6).passed()).isEqualTo(0);
    ResourceStatistics muchLater = stats.snapshot(t + 5 * SECOND, 0);
    assertThat(muchLater.lastSecond().passed()).isZero();
    assertThat(muchLater.lastMinute().passed()).isEqualTo(7);
    assertThat(stats.snapshot(t + 70 * SECOND, 0).lastMinute().passed()).isZero();
    assertThat(stats.passedInLastSecond(t + 500 * MS)).isEqualTo(7);
    assertThat(stats.passedInLastSecond(t + 1100 * MS)).isZero();
  }

  @Test
  void keepsAMinuteOfOneSecondWindowsAcrossIdleGaps() {
    LiveStatistics stats = new LiveStatistics("r");
    long t = 100 * SECOND;
    for (int s = 0; s < 90; s += 3) {
      stats.recordPass(t + s * SECOND);
      stats.recordCompletion(5 * MS, false);
    }
    ResourceStatistics snapshot = stats.snapshot(t + 90 * SECOND, 0);
    // Passes at seconds 30, 33, ..., 87 fall in the last complete minute [30 s, 90 s).
    assertThat(snapshot.lastMinute().passed()).isEqualTo(20);
    assertThat(snapshot.lastMinute().completed()).isEqualTo(20);
    assertThat(snapshot.total().passed()).isEqualTo(30);
  }

  @Test
  void countsUntimedCompletionsWithoutTakingThemIntoTheLatencyFigures() {
    LiveStatistics stats = new LiveStatistics("r");
    long t = 30 * SECOND;
    for (int i = 0; i < 4; i++) {
      stats.recordPass(t);
      stats.recordCompletion(i == 0 ? 8 * MS : -1, i == 3);
    }
    WindowStatistics w = stats.snapshot(t + SECOND, 0).lastSecond();
    assertThat(w.completed()).isEqualTo(4);
    assertThat(w.timedCompletions()).isEqualTo(1);
    assertThat(w.failed()).isEqualTo(1);
    assertThat(w.averageRtNanos()).isEqualTo(8.0 * MS);
    assertThat(stats.inFlight()).isZero();
  }

  @Test
  void timesAtMostOneCallPerSampleGap() {
    LiveStatistics stats = new LiveStatistics("r");
    long t = 30 * SECOND;
    assertThat(stats.claimTimedSample(t)).isTrue();
    assertThat(stats.claimTimedSample(t)).isFalse();
    assertThat(stats.claimTimedSample(t + LiveStatistics.TIMED_SAMPLE_GAP_NANOS - 1)).isFalse();
    assertThat(stats.claimTimedSample(t + LiveStatistics.TIMED_SAMPLE_GAP_NANOS)).isTrue();
  }

  @Test
  void derivesCallsInFlightFromPassesAndCompletions() {
    LiveStatistics stats = new LiveStatistics("r");
    stats.recordPass(SECOND);
    stats.recordPass(SECOND);
    stats.recordCompletion(MS, false);
    assertThat(stats.inFlight()).isEqualTo(1);
  }

  @Test
  void summarisesTheLastSecondForSystemProtection() {
    LiveStatistics stats = new LiveStatistics("r");
    long t = 20 * SECOND;
    for (int i = 0; i < 30; i++) {
      stats.recordPass(t + 100 * MS);
      stats.recordCompletion(4 * MS, false);
    }
    for (int i = 0; i < 10; i++) {
      stats.recordPass(t + 300 * MS);
      stats.recordCompletion(8 * MS, false);
    }
    LiveStatistics.SecondSummary s = stats.lastSecondSummary(t + SECOND);
    assertThat(s.completed()).isEqualTo(40);
    assertThat(s.rtSumNanos()).isEqualTo(30 * 4 * MS + 10 * 8 * MS);
    assertThat(s.maxCompletedPerSecond()).isEqualTo(300);
    assertThat(s.minRtNanos()).isBetween(3 * MS, 4 * MS);
  }
}
