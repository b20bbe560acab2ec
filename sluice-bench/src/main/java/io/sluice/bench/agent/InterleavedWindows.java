package io.sluice.bench.agent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Short windows of two copies of a system driven one at a time, in cycles of four, and the
 * difference between the copies read from them: how {@code ChainOverheadDriver --mode interleaved}
 * resolves a per-request cost of tens of µs on a machine that cannot drive both copies at once.
 *
 * <p><b>Order.</b> Each cycle drives the copies A B B A (cycles alternate with B A A B), so within
 * a cycle each copy has one window in the first half and one in the second: whatever drifts
 * linearly over the cycle's tens of seconds (a neighbour's build, a copy's JIT finishing, the heap
 * filling) adds the same to both copies' mean and cancels in their difference. Alternating the
 * cycles also puts each copy first as often as second, and each copy's windows follow its own
 * window as often as the other copy's.
 *
 * <p><b>Estimate.</b> Each cycle gives one difference (the mean of the second copy's two windows
 * minus the mean of the first's); a cycle counts only if all four of its windows do (a window in
 * which a copy fell behind measures a backlog). The estimate is the median of the cycles'
 * differences, and its interval is the distribution-free one of a median from order statistics
 * ({@link MedianInterval}): valid if the cycles are independent draws, which, minutes apart, they
 * are closer to than the requests within a window are. What it cannot remove is a difference that
 * stays with one copy (its JIT's choices, its memory layout): an A/A run, both copies alike, shows
 * that part as an estimate away from zero.
 */
final class InterleavedWindows {
  /**
   * The copy a window drives: the first one (A of A B B A; without the agent unless the driver's
   * {@code --agent-copy first} put it there).
   */
  static final int FIRST = 0;

  /**
   * The copy a window drives: the second one (by default the agent's, or the A/A run's second
   * copy).
   */
  static final int SECOND = 1;

  /** Windows per cycle: A B B A. */
  static final int WINDOWS_PER_CYCLE = 4;

  private InterleavedWindows() {}

  /**
   * Which copy each window drives, {@link #FIRST} or {@link #SECOND}, for {@code cycles} cycles: A
   * B B A, then B A A B, and so on.
   */
  static int[] order(int cycles) {
    if (cycles < 1) {
      throw new IllegalArgumentException("at least one cycle, not " + cycles);
    }
    int[] order = new int[cycles * WINDOWS_PER_CYCLE];
    for (int c = 0; c < cycles; c++) {
      int a = c % 2 == 0 ? FIRST : SECOND;
      int b = 1 - a;
      order[c * 4] = a;
      order[c * 4 + 1] = b;
      order[c * 4 + 2] = b;
      order[c * 4 + 3] = a;
    }
    return order;
  }

  /**
   * Per cycle whose windows all {@code count}, the mean of {@code value} over the second copy's two
   * windows minus the mean over the first copy's; {@code windows} in the order {@link #order} gave.
   */
  static <T> double[] cycleDifferences(
      int[] order, List<T> windows, ToDoubleFunction<T> value, Predicate<T> count) {
    if (windows.size() != order.length || order.length % WINDOWS_PER_CYCLE != 0) {
      throw new IllegalArgumentException(
          "one window per entry of the order, whole cycles: "
              + windows.size()
              + " windows, "
              + order.length
              + " in the order");
    }
    List<Double> differences = new ArrayList<>();
    for (int start = 0; start < order.length; start += WINDOWS_PER_CYCLE) {
      double first = 0;
      double second = 0;
      boolean counts = true;
      for (int w = start; w < start + WINDOWS_PER_CYCLE; w++) {
        T window = windows.get(w);
        if (!count.test(window)) {
          counts = false;
          break;
        }
        if (order[w] == SECOND) {
          second += value.applyAsDouble(window) / 2;
        } else {
          first += value.applyAsDouble(window) / 2;
        }
      }
      if (counts) {
        differences.add(second - first);
      }
    }
    return differences.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /**
   * The median of {@code n} values and a distribution-free interval for it from their order
   * statistics: {@code [x(k), x(n+1-k)]} (1-based, sorted) with the largest {@code k} whose
   * coverage, {@code 1 - 2 P(Binomial(n, 1/2) < k)}, is still at least the confidence asked for.
   * With too few values for that confidence ({@code n < 6} for 95 %) it is the whole range, and
   * {@code coverage} says what that range covers.
   */
  record MedianInterval(int n, double median, double low, double high, double coverage) {
    static MedianInterval of(double[] values, double confidence) {
      if (!(confidence > 0 && confidence < 1)) {
        throw new IllegalArgumentException("confidence in (0, 1), not " + confidence);
      }
      int n = values.length;
      if (n == 0) {
        return new MedianInterval(0, Double.NaN, Double.NaN, Double.NaN, 0);
      }
      double[] sorted = values.clone();
      Arrays.sort(sorted);
      double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
      // The binomial tail accumulated term by term (exact enough in doubles for n in the hundreds).
      int k = 1;
      double tail = Math.pow(0.5, n); // P(X <= 0)
      double term = tail;
      double coverage = 1 - 2 * tail;
      // Largest k with 1 - 2 P(X <= k - 1) >= confidence; k = 1 is the whole range.
      for (int j = 1; j < n / 2; j++) {
        term = term * (n - j + 1) / j; // P(X = j)
        double nextTail = tail + term; // P(X <= j)
        if (1 - 2 * nextTail < confidence) {
          break;
        }
        tail = nextTail;
        k = j + 1;
        coverage = 1 - 2 * tail;
      }
      return new MedianInterval(n, median, sorted[k - 1], sorted[n - k], coverage);
    }
  }
}
