package io.sluice.bench.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

class PairedDifferenceTest {
  /** Scheduler-like noise: mostly a few hundred µs, now and then a stall of milliseconds. */
  private static long noiseNanos(Random random) {
    double base = 300_000 + 200_000 * random.nextDouble();
    double stall = random.nextDouble() < 0.05 ? 20_000_000 * random.nextDouble() : 0;
    return (long) (base + 400_000 * -Math.log(1 - random.nextDouble()) + stall);
  }

  @Test
  void recoversAConstantShiftUnderSkewedNoiseThatDiffersPerCopy() {
    Random random = new Random(42);
    int n = 30_000;
    long[] none = new long[n];
    long[] agent = new long[n];
    for (int i = 0; i < n; i++) {
      long shared = random.nextDouble() < 0.02 ? 5_000_000 : 0; // a stall both copies see
      none[i] = 1_500_000 + shared + noiseNanos(random);
      agent[i] = 1_500_000 + 80_000 + shared + noiseNanos(random);
    }

    PairedDifference d = PairedDifference.of(none, agent, 6);

    assertThat(d.pairs()).isEqualTo(n);
    assertThat(d.medianMicros()).isCloseTo(80.0, within(15.0));
    assertThat(d.ciLowMicros()).isLessThan(d.medianMicros());
    assertThat(d.ciHighMicros()).isGreaterThan(d.medianMicros());
    assertThat(d.blockLowMicros()).isLessThanOrEqualTo(d.medianMicros());
    assertThat(d.blockHighMicros()).isGreaterThanOrEqualTo(d.medianMicros());
  }

  @Test
  void countsOnlyTheRequestsBothCopiesAnswered() {
    long[] none = {1_000, -1, 3_000, 4_000};
    long[] agent = {2_000, 5_000, -1, 6_000};

    PairedDifference d = PairedDifference.of(none, agent, 1);

    assertThat(d.pairs()).isEqualTo(2);
    assertThat(d.medianMicros()).isEqualTo(1.5); // differences 1 µs and 2 µs
  }

  @Test
  void refusesCopiesThatWereNotSentTheSameRequests() {
    assertThatThrownBy(() -> PairedDifference.of(new long[3], new long[4], 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("same requests");
  }
}
