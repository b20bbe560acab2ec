package io.sluice.bench.load;

import io.sluice.server.config.ContentMd5;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * The config scenarios of the MSE-vs-Nacos report: {@code configs} configs of {@code configBytes}
 * bytes in group {@value #GROUP}; query and publish at full load and at a fixed rate; and the time
 * from a publish until listening clients hold the new content.
 */
final class ConfigScenarios {
  static final String GROUP = "SLUICE_BENCH";
  private static final int SEED_CONCURRENCY = 64;
  private static final int SEED_ATTEMPTS = 5;

  private final Settings settings;
  private final ConfigClient client;
  private final String clientName;
  private final ProcessProbe server;
  private final Failures failures;
  private final String[] dataIds;

  ConfigScenarios(
      Settings settings,
      ConfigClient client,
      String clientName,
      ProcessProbe server,
      Failures failures) {
    this.settings = settings;
    this.client = client;
    this.clientName = clientName;
    this.server = server;
    this.failures = failures;
    this.dataIds = new String[settings.configs()];
    for (int i = 0; i < dataIds.length; i++) {
      dataIds[i] = String.format("bench-config-%05d", i);
    }
  }

  /** Content of exactly {@code bytes} ASCII bytes: a prefix letter, then {@code seq}, padded. */
  static String content(char prefix, long seq, int bytes) {
    String digits = Long.toString(seq);
    StringBuilder b = new StringBuilder(bytes).append(prefix);
    for (int i = 1 + digits.length(); i < bytes; i++) {
      b.append('0');
    }
    b.append(digits);
    return b.length() > bytes ? b.substring(b.length() - bytes) : b.toString();
  }

  private String seedContent(int i) {
    return content('s', i, settings.configBytes());
  }

  /**
   * Publishes every config once, with its seed content, through {@code seeder}. A failed publish is
   * tried again up to {@value #SEED_ATTEMPTS} times in all: seeding is set-up, not measurement, and
   * Nacos's embedded Derby store refuses some concurrent publishes ("A lock could not be obtained
   * within the time requested") when the machine is busy.
   */
  void seed(ConfigClient seeder) {
    List<CompletableFuture<?>> inFlight = new ArrayList<>();
    for (int i = 0; i < dataIds.length; i++) {
      String dataId = dataIds[i];
      String content = seedContent(i);
      inFlight.add(withRetries(() -> seeder.publish(dataId, GROUP, content), SEED_ATTEMPTS));
      if (inFlight.size() == SEED_CONCURRENCY) {
        CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).join();
        inFlight.clear();
      }
    }
    CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).join();
  }

  private static CompletableFuture<?> withRetries(
      java.util.function.Supplier<CompletableFuture<?>> attempt, int attempts) {
    CompletableFuture<?> first = attempt.get();
    if (attempts <= 1) {
      return first;
    }
    return first
        .<CompletableFuture<?>>handle(
            (ok, failure) ->
                failure == null
                    ? CompletableFuture.completedFuture(ok)
                    : withRetries(attempt, attempts - 1))
        .thenCompose(f -> f);
  }

  LoadLoop.Operation query() {
    return seq -> client.query(dataIds[ThreadLocalRandom.current().nextInt(dataIds.length)], GROUP);
  }

  LoadLoop.Operation publish() {
    return seq ->
        client.publish(
            dataIds[ThreadLocalRandom.current().nextInt(dataIds.length)],
            GROUP,
            content('u', seq, settings.configBytes()));
  }

  /** Runs {@code operation} in one load shape and reports it as {@code scenario}. */
  ScenarioResult run(String scenario, LoadLoop.Shape shape, LoadLoop.Operation operation)
      throws InterruptedException {
    return Scenarios.measure(settings, server, failures, scenario, clientName, shape, operation)
        .put("configs", settings.configs());
  }

  /**
   * {@code listeners} clients, each on its own connection, listen to {@code listensPerClient}
   * configs each (the same ones for all when shared, else spread over all configs). A publisher
   * changes the listened configs round-robin at {@code publishRate} per second. Measured: publish
   * to listener holding the new content (the official client's listener callback; the lean driver's
   * re-read after the notification), and, lean only, publish to notification.
   */
  ScenarioResult listen() throws Exception {
    int clients = settings.listeners();
    int per = Math.min(settings.listensPerClient(), dataIds.length);
    int[] watchers = new int[dataIds.length];
    List<List<String>> keysPerClient = new ArrayList<>(clients);
    for (int c = 0; c < clients; c++) {
      List<String> keys = new ArrayList<>(per);
      for (int j = 0; j < per; j++) {
        int index = settings.sharedListens() ? j : (int) (((long) c * per + j) % dataIds.length);
        keys.add(dataIds[index]);
        watchers[index]++;
      }
      keysPerClient.add(keys);
    }
    List<Integer> listened = new ArrayList<>();
    for (int i = 0; i < watchers.length; i++) {
      if (watchers[i] > 0) {
        listened.add(i);
      }
    }
    Map<String, Integer> indexOf = new ConcurrentHashMap<>();
    for (int i = 0; i < dataIds.length; i++) {
      indexOf.put(dataIds[i], i);
    }

    LatencyStats received = new LatencyStats();
    LatencyStats notified = new LatencyStats();
    LatencyStats published = new LatencyStats();
    Map<String, Long> publishedAt = new ConcurrentHashMap<>();
    Map<String, Long> lastPublishOf = new ConcurrentHashMap<>();
    LongAdder expected = new LongAdder();

    ConfigClient.ListenEvents events =
        new ConfigClient.ListenEvents() {
          @Override
          public void notified(String dataId, long nanos) {
            Long at = lastPublishOf.get(dataId);
            if (at != null) {
              notified.record(nanos - at);
            }
          }

          @Override
          public void received(String dataId, String content, long nanos) {
            Long at = content == null ? null : publishedAt.get(content);
            if (at != null) {
              received.record(nanos - at);
            }
          }
        };
    Map<String, String> md5s = new ConcurrentHashMap<>();
    long startedConnecting = System.nanoTime();
    try (AutoCloseable listeners =
        client.listen(
            keysPerClient,
            GROUP,
            dataId -> md5s.computeIfAbsent(dataId, d -> ContentMd5.of(seedContent(indexOf.get(d)))),
            events)) {
      double connectSeconds = (System.nanoTime() - startedConnecting) / 1e9;
      LoadLoop.Operation publish =
          seq -> {
            int index = listened.get((int) (seq % listened.size()));
            String content = content('L', seq, Math.max(10, settings.configBytes()));
            long now = System.nanoTime();
            publishedAt.put(content, now);
            lastPublishOf.put(dataIds[index], now);
            expected.add(watchers[index]);
            return client.publish(dataIds[index], GROUP, content);
          };
      Map<String, LatencyStats> stats = new LinkedHashMap<>();
      stats.put("received", received);
      stats.put("notified", notified);
      stats.put("publish", published);
      Measurement measurement = new Measurement(server, stats).onBegin(expected::reset);
      LoadLoop.Shape shape = new LoadLoop.Open(settings.publishRate(), settings.maxInFlight());
      Measurement.Window window =
          LoadLoop.run(
              shape,
              publish,
              published,
              measurement,
              settings.warmup(),
              settings.duration(),
              failures);
      long expectedDeliveries = expected.sum();
      long deliveries = window.main().count();
      return ScenarioResult.of("config-listen", clientName, "listeners=" + clients, window)
          .put("listeners", clients)
          .put("listensPerClient", per)
          .put("listenedConfigs", listened.size())
          .put(
              "publishesPerSec",
              ScenarioResult.round(window.stats().get("publish").count() / window.seconds(), 1))
          .put("expectedDeliveries", expectedDeliveries)
          .put(
              "deliveredShare",
              expectedDeliveries == 0
                  ? null
                  : ScenarioResult.round((double) deliveries / expectedDeliveries, 4))
          .put("listenersConnectSec", ScenarioResult.round(connectSeconds, 2));
    }
  }
}
