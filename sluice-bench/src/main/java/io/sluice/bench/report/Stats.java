package io.sluice.bench.report;

import java.util.List;
import java.util.Locale;

/** Medians and ranges of a few values, and how the tables print them. */
final class Stats {
  private Stats() {}

  static double median(List<Double> values) {
    double[] sorted =
        values.stream()
            .filter(Double::isFinite)
            .mapToDouble(Double::doubleValue)
            .sorted()
            .toArray();
    int n = sorted.length;
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  static double min(List<Double> values) {
    return values.stream()
        .filter(Double::isFinite)
        .mapToDouble(Double::doubleValue)
        .min()
        .orElse(Double.NaN);
  }

  static double max(List<Double> values) {
    return values.stream()
        .filter(Double::isFinite)
        .mapToDouble(Double::doubleValue)
        .max()
        .orElse(Double.NaN);
  }

  /** {@code 12,345 (11,002–13,870)}, or just the value when there is one. */
  static String medianAndRange(List<Double> values, int decimals) {
    double median = median(values);
    if (Double.isNaN(median)) {
      return "—";
    }
    long finite = values.stream().filter(Double::isFinite).count();
    String m = number(median, decimals);
    if (finite < 2) {
      return m;
    }
    return m + " (" + number(min(values), decimals) + "–" + number(max(values), decimals) + ")";
  }

  static String number(double value, int decimals) {
    if (Double.isNaN(value)) {
      return "—";
    }
    return String.format(Locale.ROOT, "%,." + decimals + "f", value);
  }

  /** A ratio with one decimal and a times sign, e.g. {@code 5.1×}. */
  static String times(double ratio) {
    return Double.isNaN(ratio) ? "—" : String.format(Locale.ROOT, "%.1f×", ratio);
  }
}
