package io.sluice.bench.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.sluice.bench.agent.InterleavedWindows.MedianInterval;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class InterleavedWindowsTest {
  /** One window as the driver measures it: the copy, a value (CPU µs per request), kept up. */
  record Window(int copy, double value, boolean sustained) {}

  private static List<Window> windows(int[] order, double[] values, boolean[] sustained) {
    List<Window> windows = new ArrayList<>();
    for (int i = 0; i < order.length; i++) {
      windows.add(new Window(order[i], values[i], sustained == null || sustained[i]));
    }
    return windows;
  }

  @Test
  void drivesTheCopiesABBAThenBAABSoEachCycleHasTwoWindowsOfEach() {
    assertThat(InterleavedWindows.order(3)).containsExactly(0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0);
    assertThatThrownBy(() -> InterleavedWindows.order(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aDriftThatIsLinearOverACycleCancelsAndLeavesTheCopiesDifference() {
    int cycles = 6;
    int[] order = InterleavedWindows.order(cycles);
    double[] values = new double[order.length];
    for (int w = 0; w < order.length; w++) {
      // 500 µs per request, rising 40 µs a window (far more than the 20 µs to resolve), and the
      // second copy 15 µs dearer.
      values[w] = 500 + 40.0 * w + (order[w] == InterleavedWindows.SECOND ? 15 : 0);
    }

    double[] differences =
        InterleavedWindows.cycleDifferences(
            order, windows(order, values, null), Window::value, Window::sustained);

    assertThat(differences).hasSize(cycles);
    for (double d : differences) {
      assertThat(d).isCloseTo(15.0, within(1e-9));
    }
    // The same drift read with the copies simply alternating (A B A B) would not cancel.
    int[] abab = {0, 1, 0, 1};
    double[] ababValues = new double[4];
    for (int w = 0; w < 4; w++) {
      ababValues[w] = 500 + 40.0 * w + (abab[w] == InterleavedWindows.SECOND ? 15 : 0);
    }
    assertThat(
            InterleavedWindows.cycleDifferences(
                abab, windows(abab, ababValues, null), Window::value, Window::sustained)[0])
        .isCloseTo(55.0, within(1e-9));
  }

  @Test
  void aCycleCountsOnlyIfEveryOneOfItsWindowsDoes() {
    int[] order = InterleavedWindows.order(3);
    double[] values = new double[order.length];
    boolean[] sustained = new boolean[order.length];
    for (int w = 0; w < order.length; w++) {
      values[w] = 100 + (order[w] == InterleavedWindows.SECOND ? w : 0);
      sustained[w] = w != 5; // the second cycle's second window fell behind
    }

    double[] differences =
        InterleavedWindows.cycleDifferences(
            order, windows(order, values, sustained), Window::value, Window::sustained);

    // Cycle 1: the second copy drove windows 1 and 2; cycle 3: windows 9 and 10.
    assertThat(differences).containsExactly(1.5, 9.5);
  }

  @Test
  void refusesWindowsThatDoNotMatchTheOrder() {
    int[] order = InterleavedWindows.order(1);
    assertThatThrownBy(
            () ->
                InterleavedWindows.cycleDifferences(
                    order, List.of(new Window(0, 1, true)), Window::value, Window::sustained))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theMediansIntervalIsTheOrderStatisticsWithAtLeastTheCoverageAskedFor() {
    MedianInterval ten = MedianInterval.of(new double[] {7, 3, 10, 1, 5, 9, 2, 8, 6, 4}, 0.95);
    assertThat(ten.n()).isEqualTo(10);
    assertThat(ten.median()).isEqualTo(5.5);
    // P(Binomial(10, 1/2) <= 1) = 11/1024: [x(2), x(9)] covers 97.9 %; [x(3), x(8)] only 89 %.
    assertThat(ten.low()).isEqualTo(2);
    assertThat(ten.high()).isEqualTo(9);
    assertThat(ten.coverage()).isCloseTo(1 - 22.0 / 1024, within(1e-12));

    MedianInterval five = MedianInterval.of(new double[] {3, 1, 2, 5, 4}, 0.95);
    assertThat(five.median()).isEqualTo(3);
    // Too few for 95 %: the whole range, which covers 1 - 2/32.
    assertThat(five.low()).isEqualTo(1);
    assertThat(five.high()).isEqualTo(5);
    assertThat(five.coverage()).isCloseTo(0.9375, within(1e-12));

    assertThat(MedianInterval.of(new double[0], 0.95).median()).isNaN();
    assertThatThrownBy(() -> MedianInterval.of(new double[] {1}, 1.0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theIntervalCoversTheTrueShiftAsOftenAsItSays() {
    Random random = new Random(7);
    int trials = 4_000;
    int covered = 0;
    double coverage = 0;
    for (int t = 0; t < trials; t++) {
      double[] d = new double[15];
      for (int i = 0; i < d.length; i++) {
        // Skewed noise with median 0 around a true shift of 12.
        double e = -Math.log(1 - random.nextDouble()) - Math.log(2);
        d[i] = 12 + 40 * e;
      }
      MedianInterval m = MedianInterval.of(d, 0.95);
      coverage = m.coverage();
      if (m.low() <= 12 && 12 <= m.high()) {
        covered++;
      }
    }
    assertThat(coverage).isGreaterThanOrEqualTo(0.95);
    assertThat(covered / (double) trials).isGreaterThan(0.94);
  }
}
