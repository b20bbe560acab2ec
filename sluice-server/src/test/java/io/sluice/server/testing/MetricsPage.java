package io.sluice.server.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Reads gauges off a server's Prometheus page ({@code /nacos/actuator/prometheus}). */
public final class MetricsPage {
  private final HttpClient http = HttpClient.newHttpClient();
  private final URI page;

  public MetricsPage(int httpPort) {
    this.page = URI.create("http://127.0.0.1:" + httpPort + "/nacos/actuator/prometheus");
  }

  /** The gauge's value now; fails when the page has no such gauge. */
  public long gauge(String name) throws Exception {
    String text =
        http.send(
                HttpRequest.newBuilder(page).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    return text.lines()
        .filter(line -> line.startsWith(name + " "))
        .mapToLong(line -> (long) Double.parseDouble(line.substring(name.length() + 1).trim()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no gauge " + name + " in " + text));
  }

  /** Waits up to 20 s for the gauge to read {@code value}. */
  public void awaitGauge(String name, long value) {
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(() -> assertThat(gauge(name)).as(name).isEqualTo(value));
  }
}
