package io.sluice.flow.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PacerTest {

  private static final long SECOND = 1_000_000_000L;

  @ParameterizedTest
  @ValueSource(doubles = {0.5, 10, 2_000, 50_000})
  void spacesCallsExactlyAtTheConfiguredRate(double rate) {
    long interval = Pacer.intervalFor(rate);
    assertThat(interval).isEqualTo(Math.round(1e9 / rate));
    Pacer pacer = new Pacer(SECOND);
    // Offer twice the rate for ten seconds (at least 20 calls); callers wait their turn.
    long seconds = 10;
    long offered = Math.max(20, (long) (2 * rate * seconds));
    long gap = seconds * SECOND / offered;
    List<Long> starts = new ArrayList<>();
    for (long i = 0; i < offered; i++) {
      long now = i * gap;
      long wait = pacer.tryAcquire(now, interval);
      if (wait >= 0) {
        starts.add(now + wait);
      }
    }
    for (int i = 1; i < starts.size(); i++) {
      assertThat(starts.get(i) - starts.get(i - 1)).isEqualTo(interval);
    }
    long inFirstTenSeconds = starts.stream().filter(s -> s < seconds * SECOND).count();
    assertThat(inFirstTenSeconds).isEqualTo((long) Math.ceil(rate * seconds));
    assertThat(SlidingWindowLimiterTest.maxInAnyWindow(starts, SECOND))
        .isEqualTo((long) Math.ceil(rate));
  }

  @Test
  void rejectsACallWhoseWaitWouldExceedTheMaximum() {
    Pacer pacer = new Pacer(500_000_000L);
    long interval = Pacer.intervalFor(10);
    List<Long> waits = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      waits.add(pacer.tryAcquire(SECOND, interval));
    }
    assertThat(waits)
        .containsExactly(
            0L,
            100_000_000L,
            200_000_000L,
            300_000_000L,
            400_000_000L,
            500_000_000L,
            -1L,
            -1L,
            -1L,
            -1L);
  }

  @Test
  void withoutQueueingLetsOneCallPerIntervalThrough() {
    Pacer pacer = new Pacer(0);
    long interval = Pacer.intervalFor(2);
    assertThat(pacer.tryAcquire(0, interval)).isZero();
    assertThat(pacer.tryAcquire(400_000_000L, interval)).isEqualTo(-1);
    assertThat(pacer.tryAcquire(500_000_000L, interval)).isZero();
  }

  @Test
  void computesIntervalsForRatesFarBelowOneWithoutDividingByZero() {
    assertThat(Pacer.intervalFor(0.2)).isEqualTo(5 * SECOND);
    assertThat(Pacer.intervalFor(1e-12)).isEqualTo(Long.MAX_VALUE / 4);
    assertThat(Pacer.intervalFor(5e9)).isEqualTo(1);
  }

  @Test
  void givesEveryConcurrentCallerItsOwnSlot() throws Exception {
    // Sentinel #3091: count 1, many threads, more than one passed per window.
    Pacer strict = new Pacer(0);
    long admitted =
        SlidingWindowLimiterTest.race(8, 500, t -> strict.tryAcquire(SECOND, SECOND) >= 0);
    assertThat(admitted).isEqualTo(1);

    Pacer queueing = new Pacer(SECOND);
    long interval = Pacer.intervalFor(1000);
    Set<Long> waits = ConcurrentHashMap.newKeySet();
    long queued =
        SlidingWindowLimiterTest.race(
            8,
            500,
            t -> {
              long wait = queueing.tryAcquire(SECOND, interval);
              return wait >= 0 && waits.add(wait);
            });
    assertThat(queued).isEqualTo(1001);
    assertThat(waits).allMatch(w -> w % interval == 0 && w <= SECOND);
  }
}
