package io.sluice.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One table of docs/performance.md and the chart drawn beside it: a name (the file name of the
 * chart and the marker in the document), a caption that says how the figures were taken, the rows
 * as text, and the series the chart plots (category → value per series).
 */
final class Table {
  final String name;
  final String title;
  final String caption;
  final List<String> header;
  final List<List<String>> rows = new ArrayList<>();

  /** Chart: series name → (category → value); categories keep their insertion order. */
  final Map<String, Map<String, Double>> series = new LinkedHashMap<>();

  String valueAxis = "";
  boolean logScale;

  /** A line chart instead of bars: series name → points (x, y), and the x axis's label. */
  final Map<String, List<double[]>> lines = new LinkedHashMap<>();

  String xAxis = "";

  /** A short line for the chart saying how the figures were taken; the caption when unset. */
  String chartNote;

  Table(String name, String title, String caption, List<String> header) {
    this.name = name;
    this.title = title;
    this.caption = caption;
    this.header = List.copyOf(header);
  }

  Table row(List<String> cells) {
    if (cells.size() != header.size()) {
      throw new IllegalArgumentException(
          name + ": row of " + cells.size() + " cells under " + header.size() + " columns");
    }
    rows.add(List.copyOf(cells));
    return this;
  }

  Table plot(String seriesName, String category, double value) {
    if (Double.isFinite(value)) {
      series.computeIfAbsent(seriesName, s -> new LinkedHashMap<>()).put(category, value);
    }
    return this;
  }

  /** The caption as one plain line for a chart (markdown emphasis and links dropped). */
  String captionLine() {
    if (chartNote != null) {
      return chartNote;
    }
    return caption.replace("**", "").replace("`", "").replaceAll("\\[([^]]*)]\\([^)]*\\)", "$1");
  }

  /** The block that goes between this table's markers in the document. */
  String markdown(String chartPath) {
    StringBuilder b = new StringBuilder();
    b.append(caption).append("\n\n");
    b.append("| ").append(String.join(" | ", header)).append(" |\n");
    b.append("|");
    for (int i = 0; i < header.size(); i++) {
      b.append(i == 0 ? "---|" : "---:|");
    }
    b.append('\n');
    for (List<String> row : rows) {
      b.append("| ").append(String.join(" | ", row)).append(" |\n");
    }
    if (!series.isEmpty() || !lines.isEmpty()) {
      b.append("\n![").append(title).append("](").append(chartPath).append(")\n");
    }
    return b.toString();
  }
}
