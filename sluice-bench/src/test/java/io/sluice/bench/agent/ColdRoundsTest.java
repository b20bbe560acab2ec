package io.sluice.bench.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class ColdRoundsTest {
  private static final String[] VARIANTS = {"baseline", "a", "b", "c"};

  @Test
  void everyRoundTimesEveryVariantOnceAndTakesWhatItAnnounced() {
    ColdRounds rounds = new ColdRounds(VARIANTS, 1);
    List<List<Integer>> taken = new ArrayList<>();
    for (int round = 0; round < 20; round++) {
      List<Integer> one = new ArrayList<>();
      for (int call = 0; call < VARIANTS.length; call++) {
        int announced = rounds.upcoming();
        rounds.evictCaches();
        int now = rounds.take();
        assertThat(now).isEqualTo(announced);
        one.add(now);
      }
      assertThat(one).containsExactlyInAnyOrder(0, 1, 2, 3);
      taken.add(one);
    }
    assertThat(new HashSet<>(taken)).as("the order is shuffled per round").hasSizeGreaterThan(5);
  }

  @Test
  void keepsSamplesOnlyWhileMeasuringAndReportsOverTheBaseline() {
    ColdRounds rounds = new ColdRounds(VARIANTS, 1);
    rounds.record(1, 1_000_000);
    rounds.measuring(true);
    for (int i = 1; i <= 5; i++) {
      rounds.record(0, 300);
      rounds.record(1, 1_300 + i * 1_000);
    }
    rounds.measuring(false);
    rounds.record(1, 9_000_000);

    assertThat(rounds.median("baseline")).isEqualTo(300);
    assertThat(rounds.median("a")).isEqualTo(4_300);
    assertThat(rounds.median("b")).as("no samples").isZero();
    assertThat(rounds.coldLines())
        .contains("cold: sweepKiB=1 a         p50    4.00  p25    3.00  p75    5.00")
        .contains("n=5");
    assertThat(rounds.pairLine("x", "a", "baseline", "a")).contains("new-old   +4.00  A/A   +0.00");
  }

  @Test
  void wantsTheTimerAloneFirst() {
    assertThatThrownBy(() -> new ColdRounds(new String[] {"a", "baseline"}, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ColdRounds(VARIANTS, 1).indexOf("none"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
