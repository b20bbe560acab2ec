package io.sluice.bench.load;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.naming.NamingService;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The write side of {@code sluice-bench/scripts/cluster-failover.sh}: a steady stream of writes
 * into a cluster through the official {@code nacos-client}, each client given every node's address,
 * while the script kills the leader; then a check that no acknowledged write was lost.
 *
 * <p>{@code --config-writers} threads each publish new configs ({@code fo-W-SEQ} in group {@code
 * FAILOVER}, one after another, {@code --pause-ms} apart) through a {@code ConfigService} of their
 * own; {@code --registrars} threads each register ephemeral instances (port {@code SEQ} of service
 * {@code fo-svc-R-(SEQ % 20)}) through a {@code NamingService} of their own: a gRPC client holds
 * one instance per service, so each registration replaces that service's previous one. A write that
 * fails (an exception or {@code false}) is counted and tried again with the same key and content
 * until it is acknowledged, so every key is acknowledged at most once. Every attempt's outcome goes
 * to {@code --events} as {@code kind,writer,started_ms,ended_ms,ok|fail} (epoch milliseconds,
 * comparable with the script's kill times).
 *
 * <p>When the file {@code --stop-file} appears the writers stop, and the driver reads every
 * acknowledged config back from every node over HTTP ({@code GET /nacos/v1/cs/configs}: a
 * linearizable read on any node) and waits until every node lists the last acknowledged instance of
 * each registrar's services (their clients are still alive, so these must be listed), up to {@code
 * --verify-seconds}. It prints one line per check and exits 0 if nothing was lost, 1 otherwise.
 *
 * <pre>
 * java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.load.ClusterFailover \
 *     127.0.0.1:28848,127.0.0.2:28848,127.0.0.3:28848 --events events.csv --stop-file stop \
 *     [--config-writers 3] [--registrars 2] [--pause-ms 20] [--verify-seconds 120]
 * </pre>
 */
public final class ClusterFailover {
  private static final String GROUP = "FAILOVER";
  private static final int SERVICES_PER_REGISTRAR = 20;

  private final PrintWriter events;
  private final long pauseMillis;
  private volatile boolean stopped;

  /** Acknowledged configs: data id to content. */
  private final Map<String, String> ackedConfigs = new ConcurrentHashMap<>();

  /** The last acknowledged instance of each service: service name to port. */
  private final Map<String, Integer> ackedInstances = new ConcurrentHashMap<>();

  private final AtomicLong registrations = new AtomicLong();

  private final AtomicLong failures = new AtomicLong();

  private ClusterFailover(PrintWriter events, long pauseMillis) {
    this.events = events;
    this.pauseMillis = pauseMillis;
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || args[0].startsWith("-")) {
      System.err.println(
          "usage: ClusterFailover host:port,host:port,host:port --events FILE --stop-file FILE"
              + " [--config-writers N] [--registrars N] [--pause-ms N] [--verify-seconds N]");
      System.exit(2);
    }
    String servers = args[0];
    Path eventsFile = null;
    Path stopFile = null;
    int configWriters = 3;
    int registrars = 2;
    long pauseMillis = 20;
    int verifySeconds = 120;
    for (int i = 1; i < args.length; i += 2) {
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(args[i] + " needs a value");
      }
      switch (args[i]) {
        case "--events" -> eventsFile = Path.of(args[i + 1]);
        case "--stop-file" -> stopFile = Path.of(args[i + 1]);
        case "--config-writers" -> configWriters = atLeast(args[i], args[i + 1], 0);
        case "--registrars" -> registrars = atLeast(args[i], args[i + 1], 0);
        case "--pause-ms" -> pauseMillis = atLeast(args[i], args[i + 1], 0);
        case "--verify-seconds" -> verifySeconds = atLeast(args[i], args[i + 1], 1);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (eventsFile == null || stopFile == null) {
      throw new IllegalArgumentException("--events and --stop-file are required");
    }
    LoadDriver.quietOfficialClient();
    ClusterFailover driver;
    try (PrintWriter events = new PrintWriter(Files.newBufferedWriter(eventsFile))) {
      events.println("kind,writer,started_ms,ended_ms,outcome");
      driver = new ClusterFailover(events, pauseMillis);
      List<Thread> threads = new ArrayList<>();
      List<AutoCloseable> clients = new ArrayList<>();
      for (int w = 0; w < configWriters; w++) {
        ConfigService config = NacosFactory.createConfigService(properties(servers));
        clients.add(config::shutDown);
        int writer = w;
        threads.add(new Thread(() -> driver.publishConfigs(config, writer), "config-writer-" + w));
      }
      for (int r = 0; r < registrars; r++) {
        NamingService naming = NacosFactory.createNamingService(properties(servers));
        clients.add(naming::shutDown);
        int registrar = r;
        threads.add(new Thread(() -> driver.register(naming, registrar), "registrar-" + r));
      }
      threads.forEach(Thread::start);
      System.out.println("writing; stop with: touch " + stopFile);
      while (!Files.exists(stopFile)) {
        Thread.sleep(100);
        synchronized (events) {
          events.flush();
        }
      }
      driver.stopped = true;
      for (Thread thread : threads) {
        thread.join(60_000);
      }
      synchronized (events) {
        events.flush();
      }
      boolean intact = driver.verify(servers.split(","), verifySeconds);
      for (AutoCloseable client : clients) {
        client.close();
      }
      System.exit(intact ? 0 : 1);
    }
  }

  private static Properties properties(String servers) {
    Properties properties = new Properties();
    properties.put(PropertyKeyConst.SERVER_ADDR, servers);
    return properties;
  }

  private void publishConfigs(ConfigService config, int writer) {
    for (long seq = 0; !stopped; seq++) {
      String dataId = "fo-" + writer + "-" + seq;
      String content = writer + ":" + seq + ":" + System.nanoTime();
      boolean acked = false;
      while (!acked && !stopped) {
        long started = System.currentTimeMillis();
        try {
          acked = config.publishConfig(dataId, GROUP, content);
        } catch (Exception e) {
          acked = false;
        }
        record("config", writer, started, acked);
      }
      if (acked) {
        ackedConfigs.put(dataId, content);
      }
      pause();
    }
  }

  private void register(NamingService naming, int registrar) {
    for (int seq = 1; !stopped && seq < 60_000; seq++) {
      String service = "fo-svc-" + registrar + "-" + (seq % SERVICES_PER_REGISTRAR);
      boolean acked = false;
      while (!acked && !stopped) {
        long started = System.currentTimeMillis();
        try {
          naming.registerInstance(service, "127.0.0.9", seq);
          acked = true;
        } catch (Exception e) {
          acked = false;
        }
        record("instance", registrar, started, acked);
      }
      if (acked) {
        ackedInstances.put(service, seq);
        registrations.incrementAndGet();
      }
      pause();
    }
  }

  private void record(String kind, int writer, long startedMillis, boolean acked) {
    long ended = System.currentTimeMillis();
    if (!acked) {
      failures.incrementAndGet();
    }
    synchronized (events) {
      events.printf("%s,%d,%d,%d,%s%n", kind, writer, startedMillis, ended, acked ? "ok" : "fail");
    }
  }

  private void pause() {
    if (pauseMillis > 0) {
      try {
        Thread.sleep(pauseMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stopped = true;
      }
    }
  }

  /** Reads every acknowledged write back from every node; true if none is missing. */
  private boolean verify(String[] nodes, int verifySeconds) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    boolean intact = true;
    try {
      System.out.printf(
          "acknowledged: %d configs, %d ephemeral registrations (%d services); %d attempts failed"
              + " (each retried)%n",
          ackedConfigs.size(), registrations.get(), ackedInstances.size(), failures.get());
      for (String node : nodes) {
        List<Future<String>> checks = new ArrayList<>();
        for (Map.Entry<String, String> acked : ackedConfigs.entrySet()) {
          checks.add(pool.submit(() -> checkConfig(http, node, acked.getKey(), acked.getValue())));
        }
        List<String> wrong = new ArrayList<>();
        for (Future<String> check : checks) {
          String problem = check.get();
          if (problem != null) {
            wrong.add(problem);
          }
        }
        System.out.printf(
            "node %s: %d of %d acknowledged configs read back as written%s%n",
            node,
            ackedConfigs.size() - wrong.size(),
            ackedConfigs.size(),
            wrong.isEmpty()
                ? ""
                : "; LOST or wrong: " + wrong.subList(0, Math.min(5, wrong.size())));
        intact &= wrong.isEmpty();
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(verifySeconds).toNanos();
      for (String node : nodes) {
        List<String> missing;
        do {
          missing = missingInstances(http, node);
        } while (!missing.isEmpty() && System.nanoTime() < deadline && sleep(500));
        System.out.printf(
            "node %s: lists %s services' last acknowledged ephemeral instance%s%n",
            node,
            missing.isEmpty() ? "all" : "not all",
            missing.isEmpty() ? "" : "; missing: " + missing);
        intact &= missing.isEmpty();
      }
    } finally {
      pool.shutdownNow();
    }
    return intact;
  }

  private static String checkConfig(HttpClient http, String node, String dataId, String content)
      throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        HttpResponse<String> answer =
            http.send(
                HttpRequest.newBuilder(
                        URI.create(
                            "http://"
                                + node
                                + "/nacos/v1/cs/configs?group="
                                + GROUP
                                + "&dataId="
                                + dataId))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() == 200) {
          return content.equals(answer.body()) ? null : dataId + " reads " + answer.body();
        }
        if (answer.statusCode() == 404 || attempt == 3) {
          return dataId + " answered " + answer.statusCode();
        }
      } catch (java.io.IOException e) {
        if (attempt == 3) {
          return dataId + " unreadable: " + e;
        }
      }
      Thread.sleep(200);
    }
  }

  /** The last acknowledged instances that node does not list (service:port), at most ten. */
  private List<String> missingInstances(HttpClient http, String node) {
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, Integer> service : ackedInstances.entrySet()) {
      String list;
      try {
        list =
            http.send(
                    HttpRequest.newBuilder(
                            URI.create(
                                "http://"
                                    + node
                                    + "/nacos/v1/ns/instance/list?serviceName="
                                    + URLEncoder.encode(service.getKey(), StandardCharsets.UTF_8)))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .body();
      } catch (Exception e) {
        list = "";
      }
      if (!list.contains("\"port\":" + service.getValue() + ",") && missing.size() < 10) {
        missing.add(service.getKey() + ":" + service.getValue());
      }
    }
    return missing;
  }

  private static boolean sleep(long millis) {
    try {
      Thread.sleep(millis);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static int atLeast(String option, String value, int least) {
    int parsed = Integer.parseInt(value);
    if (parsed < least) {
      throw new IllegalArgumentException(option + " must be at least " + least + ", got " + value);
    }
    return parsed;
  }
}
