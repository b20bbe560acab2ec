package io.sluice.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrometheusTextTest {
  @Test
  void escapesLabelValuesAndHelpAsTheFormatRequires() {
    StringBuilder out = new StringBuilder();
    new PrometheusText(out)
        .family("x_total", "counter", "a \\ help\nline")
        .sample("x_total", 3, "path", "a\"b\\c\nd");
    assertThat(out.toString())
        .isEqualTo(
            "# HELP x_total a \\\\ help\\nline\n"
                + "# TYPE x_total counter\n"
                + "x_total{path=\"a\\\"b\\\\c\\nd\"} 3\n");
  }

  @Test
  void writesAHistogramWithCumulativeBucketsInSeconds() {
    Histogram h = new Histogram();
    h.record(50_000); // 50 µs: first bucket
    h.record(2_000_000); // 2 ms
    h.record(60_000_000_000L); // above every bound
    StringBuilder out = new StringBuilder();
    new PrometheusText(out).histogram("d_seconds", h, "op", "q");
    String text = out.toString();
    assertThat(text).contains("d_seconds_bucket{op=\"q\",le=\"0.0001\"} 1\n");
    assertThat(text).contains("d_seconds_bucket{op=\"q\",le=\"0.0025\"} 2\n");
    assertThat(text).contains("d_seconds_bucket{op=\"q\",le=\"30\"} 2\n");
    assertThat(text).contains("d_seconds_bucket{op=\"q\",le=\"+Inf\"} 3\n");
    assertThat(text).contains("d_seconds_count{op=\"q\"} 3\n");
    assertThat(text).contains("d_seconds_sum{op=\"q\"} 60.00205\n");
  }

  @Test
  void sharesOneMeterPerOperationAndOneOtherBeyondTheBound() {
    ServerMetrics metrics = new ServerMetrics();
    assertThat(metrics.operation("grpc", "A")).isSameAs(metrics.operation("grpc", "A"));
    for (int i = 0; i < ServerMetrics.MAX_OPERATIONS + 10; i++) {
      metrics.operation("http", "GET /p" + i);
    }
    assertThat(metrics.operation("http", "GET /beyond").operation()).isEqualTo(ServerMetrics.OTHER);
  }
}
