package io.sluice.server.metrics;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.config.listener.AbstractListener;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.OfficialClients;
import java.io.ByteArrayInputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.hawkular.agent.prometheus.text.TextPrometheusMetricDataParser;
import org.hawkular.agent.prometheus.types.Counter;
import org.hawkular.agent.prometheus.types.Gauge;
import org.hawkular.agent.prometheus.types.Histogram;
import org.hawkular.agent.prometheus.types.Metric;
import org.hawkular.agent.prometheus.types.MetricFamily;
import org.hawkular.agent.prometheus.types.MetricType;
import org.hawkular.agent.prometheus.types.Summary;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's metrics at Nacos's path, read by an independent parser of Prometheus's text format
 * (Hawkular's scraper, written from the format's specification), while the official nacos-client
 * loads the server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PrometheusIT {
  static final String PATH = "/nacos/actuator/prometheus";

  @TempDir static Path dataDir;

  private OfficialClients clients;
  private OpenApiClient api;

  @BeforeAll
  void start() {
    clients = OfficialClients.start(dataDir);
    api = new OpenApiClient(clients.server().httpAddress());
  }

  @AfterAll
  void stop() throws Exception {
    clients.close();
  }

  @Test
  void servesEveryFamilyInTheTextFormatThatAPrometheusParserReadsLineForLine() throws Exception {
    HttpResponse<String> response = api.get(PATH, Map.of());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type").orElse(""))
        .startsWith("text/plain; version=0.0.4");
    String text = response.body();
    Map<String, MetricFamily> families = parse(text);

    assertThat(families)
        .containsKeys(
            "sluice_request_duration_seconds",
            "sluice_request_failures_total",
            "sluice_ready",
            "sluice_grpc_connections",
            "sluice_http_connections",
            "sluice_grpc_pushes_total",
            "sluice_grpc_push_failures_total",
            "sluice_config_held_polls",
            "sluice_configs",
            "sluice_naming_services",
            "sluice_naming_instances",
            "sluice_naming_subscribers",
            "sluice_replication_commit_duration_seconds",
            "sluice_traffic_reports_total",
            "jvm_memory_bytes_used",
            "jvm_gc_collection_seconds",
            "jvm_threads_current",
            "process_cpu_seconds_total",
            "process_start_time_seconds");
    assertThat(families.get("sluice_request_duration_seconds").getType())
        .isEqualTo(MetricType.HISTOGRAM);
    assertThat(families.get("sluice_replication_commit_duration_seconds").getType())
        .isEqualTo(MetricType.HISTOGRAM);
    assertThat(families.get("sluice_grpc_pushes_total").getType()).isEqualTo(MetricType.COUNTER);
    assertThat(families.get("jvm_gc_collection_seconds").getType()).isEqualTo(MetricType.SUMMARY);
    assertThat(value(families, "sluice_ready", Map.of())).isEqualTo(1.0);
    assertThat(value(families, "jvm_memory_bytes_used", Map.of("area", "heap"))).isPositive();

    // The parser drops a line it cannot read without saying so: every sample line must come back.
    long sampleLines = text.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).count();
    assertThat(samplesParsed(families)).isEqualTo(sampleLines);
    // Each histogram's buckets are cumulative and end in +Inf with the count.
    for (Metric m : families.get("sluice_request_duration_seconds").getMetrics()) {
      Histogram h = (Histogram) m;
      long previous = 0;
      for (Histogram.Bucket b : h.getBuckets()) {
        assertThat(b.getCumulativeCount()).isGreaterThanOrEqualTo(previous);
        previous = b.getCumulativeCount();
      }
      assertThat(h.getBuckets().get(h.getBuckets().size() - 1).getUpperBound())
          .isEqualTo(Double.POSITIVE_INFINITY);
      assertThat(previous).isEqualTo(h.getSampleCount());
    }
  }

  @Test
  void countersMoveWithLoadFromTheOfficialClient() throws Exception {
    Map<String, MetricFamily> before = scrape();
    ConfigService config = clients.configService((String) null);
    NamingService naming = clients.namingService((String) null);
    int configs = 20;
    for (int i = 0; i < configs; i++) {
      assertThat(config.publishConfig("metrics-" + i, "DEFAULT_GROUP", "v" + i)).isTrue();
    }
    for (int i = 0; i < configs; i++) {
      assertThat(config.getConfig("metrics-" + i, "DEFAULT_GROUP", 5_000)).isEqualTo("v" + i);
    }
    CountDownLatch changed = new CountDownLatch(1);
    config.addListener(
        "metrics-0",
        "DEFAULT_GROUP",
        new AbstractListener() {
          @Override
          public void receiveConfigInfo(String content) {
            if ("changed".equals(content)) {
              changed.countDown();
            }
          }
        });
    assertThat(config.publishConfig("metrics-0", "DEFAULT_GROUP", "changed")).isTrue();
    assertThat(changed.await(10, TimeUnit.SECONDS)).isTrue();
    // A subscriber gets the instance list pushed as it changes.
    CountDownLatch pushed = new CountDownLatch(1);
    naming.subscribe(
        "metrics-service",
        event -> {
          if (event instanceof NamingEvent e && !e.getInstances().isEmpty()) {
            pushed.countDown();
          }
        });
    naming.registerInstance("metrics-service", "127.0.0.1", 8080);
    assertThat(pushed.await(10, TimeUnit.SECONDS)).isTrue();
    for (int i = 0; i < 7; i++) {
      api.get("/nacos/v1/cs/configs", params("dataId", "metrics-1", "group", "DEFAULT_GROUP"));
    }
    api.get("/nacos/v1/no/such/path", Map.of());

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              Map<String, MetricFamily> after = scrape();
              assertThat(
                      requests(after, "grpc", "ConfigPublishRequest")
                          - requests(before, "grpc", "ConfigPublishRequest"))
                  .isGreaterThanOrEqualTo(configs + 1);
              assertThat(
                      requests(after, "grpc", "ConfigQueryRequest")
                          - requests(before, "grpc", "ConfigQueryRequest"))
                  .isGreaterThanOrEqualTo(configs);
              assertThat(
                      requests(after, "grpc", "InstanceRequest")
                          - requests(before, "grpc", "InstanceRequest"))
                  .isGreaterThanOrEqualTo(1);
              assertThat(
                      requests(after, "http", "GET /nacos/v1/cs/configs")
                          - requests(before, "http", "GET /nacos/v1/cs/configs"))
                  .isEqualTo(7);
              assertThat(requests(after, "http", "other") - requests(before, "http", "other"))
                  .isEqualTo(1);
              assertThat(
                      value(after, "sluice_grpc_pushes_total", Map.of())
                          - value(before, "sluice_grpc_pushes_total", Map.of()))
                  .isGreaterThanOrEqualTo(1);
              assertThat(commits(after) - commits(before)).isGreaterThanOrEqualTo(configs + 1);
              assertThat(value(after, "sluice_configs", Map.of())).isGreaterThanOrEqualTo(configs);
              assertThat(value(after, "sluice_naming_instances", Map.of()))
                  .isGreaterThanOrEqualTo(1);
              assertThat(value(after, "sluice_grpc_connections", Map.of()))
                  .isGreaterThanOrEqualTo(2);
            });
  }

  @Test
  void countsAHeldLongPollWhileItIsHeld() throws Exception {
    String listening = "held-poll\u0002DEFAULT_GROUP\u0002\u0001";
    CompletableFuture<HttpResponse<String>> poll =
        api.postAsync(
            "/nacos/v1/cs/configs/listener",
            params("Listening-Configs", listening),
            "Long-Pulling-Timeout",
            "30000");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> value(scrape(), "sluice_config_held_polls", Map.of()) >= 1);
    ConfigService config = clients.configService((String) null);
    assertThat(config.publishConfig("held-poll", "DEFAULT_GROUP", "now")).isTrue();
    assertThat(poll.get(10, TimeUnit.SECONDS).body()).contains("held-poll");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(requests(scrape(), "http", "POST /nacos/v1/cs/configs/listener"))
                    .isGreaterThanOrEqualTo(1));
  }

  private Map<String, MetricFamily> scrape() throws Exception {
    return parse(api.get(PATH, Map.of()).body());
  }

  static Map<String, MetricFamily> parse(String text) throws Exception {
    TextPrometheusMetricDataParser parser =
        new TextPrometheusMetricDataParser(
            new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    Map<String, MetricFamily> families = new LinkedHashMap<>();
    MetricFamily family;
    while ((family = parser.parse()) != null) {
      assertThat(families.put(family.getName(), family))
          .as("family %s appears once", family.getName())
          .isNull();
    }
    return families;
  }

  private static long samplesParsed(Map<String, MetricFamily> families) {
    long n = 0;
    for (MetricFamily f : families.values()) {
      for (Metric m : f.getMetrics()) {
        if (m instanceof Histogram h) {
          n += h.getBuckets().size() + 2;
        } else if (m instanceof Summary s) {
          n += s.getQuantiles().size() + 2;
        } else {
          n++;
        }
      }
    }
    return n;
  }

  private static long requests(Map<String, MetricFamily> families, String protocol, String op) {
    for (Metric m : families.get("sluice_request_duration_seconds").getMetrics()) {
      if (protocol.equals(m.getLabels().get("protocol"))
          && op.equals(m.getLabels().get("operation"))) {
        return ((Histogram) m).getSampleCount();
      }
    }
    return 0;
  }

  private static long commits(Map<String, MetricFamily> families) {
    return ((Histogram)
            families.get("sluice_replication_commit_duration_seconds").getMetrics().get(0))
        .getSampleCount();
  }

  private static double value(
      Map<String, MetricFamily> families, String name, Map<String, String> labels) {
    MetricFamily family = families.get(name);
    assertThat(family).as(name).isNotNull();
    for (Metric m : family.getMetrics()) {
      if (m.getLabels().entrySet().containsAll(labels.entrySet())) {
        if (m instanceof Counter c) {
          return c.getValue();
        }
        if (m instanceof Gauge g) {
          return g.getValue();
        }
      }
    }
    throw new AssertionError("no sample of " + name + " with " + labels);
  }
}
