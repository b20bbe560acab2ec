package io.sluice.server.metrics;

/**
 * Writes Prometheus's text exposition format, version 0.0.4: per family a {@code # HELP} and a
 * {@code # TYPE} line, then its samples, each {@code name{label="value",...} number}. Label values
 * and help texts are escaped as the format requires; names are the caller's constants and must
 * match {@code [a-zA-Z_:][a-zA-Z0-9_:]*}. Not thread-safe: one per scrape.
 */
public final class PrometheusText {
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final StringBuilder out;

  PrometheusText(StringBuilder out) {
    this.out = out;
  }

  /**
   * Starts a family: its help and type ({@code counter}, {@code gauge}, {@code histogram}, ...).
   */
  public PrometheusText family(String name, String type, String help) {
    out.append("# HELP ").append(name).append(' ');
    escape(help, false);
    out.append('\n').append("# TYPE ").append(name).append(' ').append(type).append('\n');
    return this;
  }

  /** A sample without labels. */
  public PrometheusText sample(String name, double value) {
    out.append(name).append(' ');
    number(value);
    out.append('\n');
    return this;
  }

  /** A sample with labels given as name, value, name, value, ... */
  public PrometheusText sample(String name, double value, String... labels) {
    out.append(name);
    labels(labels, null, null);
    out.append(' ');
    number(value);
    out.append('\n');
    return this;
  }

  /** A one-sample gauge family. */
  public PrometheusText gauge(String name, String help, double value) {
    return family(name, "gauge", help).sample(name, value);
  }

  /** A one-sample counter family; {@code name} should end in {@code _total}. */
  public PrometheusText counter(String name, String help, double value) {
    return family(name, "counter", help).sample(name, value);
  }

  /**
   * The samples of one histogram in a family written already: cumulative {@code _bucket} lines with
   * {@code le} in seconds, then {@code _sum} (seconds) and {@code _count}.
   */
  public PrometheusText histogram(String name, Histogram histogram, String... labels) {
    long[] counts = histogram.bucketCounts();
    long cumulative = 0;
    for (int i = 0; i < counts.length; i++) {
      cumulative += counts[i];
      out.append(name).append("_bucket");
      labels(
          labels, "le", i < Histogram.BOUNDS_SECONDS.length ? Histogram.BOUNDS_SECONDS[i] : "+Inf");
      out.append(' ').append(cumulative).append('\n');
    }
    out.append(name).append("_sum");
    labels(labels, null, null);
    out.append(' ');
    number(histogram.sumNanos() / 1e9);
    out.append('\n');
    out.append(name).append("_count");
    labels(labels, null, null);
    out.append(' ').append(cumulative).append('\n');
    return this;
  }

  private void labels(String[] labels, String extraName, String extraValue) {
    if (labels.length == 0 && extraName == null) {
      return;
    }
    out.append('{');
    boolean first = true;
    for (int i = 0; i + 1 < labels.length; i += 2) {
      if (!first) {
        out.append(',');
      }
      first = false;
      out.append(labels[i]).append("=\"");
      escape(labels[i + 1], true);
      out.append('"');
    }
    if (extraName != null) {
      if (!first) {
        out.append(',');
      }
      out.append(extraName).append("=\"").append(extraValue).append('"');
    }
    out.append('}');
  }

  private void number(double value) {
    if (Double.isNaN(value)) {
      out.append("NaN");
    } else if (Double.isInfinite(value)) {
      out.append(value > 0 ? "+Inf" : "-Inf");
    } else if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      out.append((long) value);
    } else {
      out.append(value);
    }
  }

  /** Backslash and newline always; the double quote too inside a label value. */
  private void escape(String s, boolean quote) {
    String text = s == null ? "" : s;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\') {
        out.append("\\\\");
      } else if (c == '\n') {
        out.append("\\n");
      } else if (quote && c == '"') {
        out.append("\\\"");
      } else {
        out.append(c);
      }
    }
  }
}
