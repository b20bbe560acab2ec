package io.sluice.bench.load;

import com.alibaba.nacos.api.PropertyKeyConst;
import io.sluice.bench.load.lean.LeanConnection;
import io.sluice.bench.load.lean.LeanTransport;
import io.sluice.bench.load.lean.Requests;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs the chosen scenarios in one client mode against one server, in order, and hands each result
 * to {@code sink} as soon as it is known.
 */
final class Scenarios {
  static final List<String> CONFIG = List.of("config-query", "config-publish", "config-listen");
  static final List<String> NAMING = List.of("naming-register", "naming-query", "naming-push");

  /**
   * The Nacos keep-alive, {@code HealthCheckRequest}, which a server answers without touching its
   * registry or config store: what one call costs the transport alone. Lean only, since the
   * official client sends it from its own idle timer and has no call for it.
   */
  static final String HEALTH_CHECK = "health-check";

  /** Client modes. */
  static final String LEAN = "lean";

  static final String OFFICIAL = "official";

  /** Loop shapes. */
  static final String CLOSED = "closed";

  static final String OPEN = "open";
  static final String BOTH = "both";

  /** Share of the closed-loop throughput an open loop runs at when no rate is given. */
  static final double DEFAULT_OPEN_SHARE = 0.7;

  private final Settings settings;
  private final String clientMode;
  private final String loop;
  private final ProcessProbe server;
  private final int ioThreads;
  private final Consumer<ScenarioResult> sink;
  private final PrintStream log;
  private final Failures failures;

  Scenarios(
      Settings settings,
      String clientMode,
      String loop,
      ProcessProbe server,
      int ioThreads,
      Consumer<ScenarioResult> sink,
      PrintStream log,
      Failures failures) {
    this.settings = settings;
    this.clientMode = clientMode;
    this.loop = loop;
    this.server = server;
    this.ioThreads = ioThreads;
    this.sink = sink;
    this.log = log;
    this.failures = failures;
  }

  static String describe(LoadLoop.Shape shape) {
    if (shape instanceof LoadLoop.Closed closed) {
      return "closed/" + closed.concurrency();
    }
    return "open/" + Math.round(((LoadLoop.Open) shape).perSecond()) + "/s";
  }

  /** Throws {@link IllegalArgumentException} naming the first scenario that cannot run. */
  static void check(List<String> names, String clientMode) {
    for (String name : names) {
      if (!CONFIG.contains(name) && !NAMING.contains(name) && !name.equals(HEALTH_CHECK)) {
        throw new IllegalArgumentException(
            "unknown scenario " + name + "; known: " + CONFIG + " " + NAMING + " " + HEALTH_CHECK);
      }
      if (name.equals(HEALTH_CHECK) && !clientMode.equals(LEAN)) {
        throw new IllegalArgumentException(
            HEALTH_CHECK
                + " runs with --client lean only: nacos-client sends HealthCheckRequest from its"
                + " own idle timer and has no call for it");
      }
    }
  }

  void run(List<String> names) throws Exception {
    check(names, clientMode);
    try (LeanTransport transport =
        new LeanTransport(
            settings.servers().stream()
                .map(e -> InetSocketAddress.createUnresolved(e.host(), e.grpcPort()))
                .toList(),
            ioThreads,
            LeanTransport.DEFAULT_TIMEOUT_MILLIS)) {
      List<String> config = names.stream().filter(CONFIG::contains).toList();
      if (!config.isEmpty()) {
        runConfig(transport, config);
      }
      List<String> naming = names.stream().filter(NAMING::contains).toList();
      if (!naming.isEmpty()) {
        runNaming(transport, naming);
      }
      if (names.contains(HEALTH_CHECK)) {
        runHealthCheck(transport);
      }
    }
  }

  private void runHealthCheck(LeanTransport transport) throws InterruptedException {
    List<LeanConnection> pool =
        Connections.open(transport, LeanTransport.namingLabels(), settings.connections());
    try {
      log.printf("load: %s (%s client)%n", HEALTH_CHECK, clientMode);
      LoadLoop.Operation operation =
          seq -> {
            LeanConnection c = pool.get((int) (seq % pool.size()));
            return c.call("HealthCheckRequest", Requests.healthCheck(c.nextRequestId()));
          };
      shapes(HEALTH_CHECK, operation, this::measure);
    } finally {
      pool.forEach(LeanConnection::close);
    }
  }

  private ScenarioResult measure(String name, LoadLoop.Shape shape, LoadLoop.Operation operation)
      throws InterruptedException {
    return measure(settings, server, failures, name, clientMode, shape, operation);
  }

  /**
   * One throughput scenario: {@code operation} driven in {@code shape} through the warm-up and the
   * measured window, its latencies the result's main figures.
   */
  static ScenarioResult measure(
      Settings settings,
      ProcessProbe server,
      Failures failures,
      String name,
      String client,
      LoadLoop.Shape shape,
      LoadLoop.Operation operation)
      throws InterruptedException {
    LatencyStats stats = new LatencyStats();
    Measurement.Window window =
        LoadLoop.run(
            shape,
            operation,
            stats,
            new Measurement(server, Map.of("ops", stats)),
            settings.warmup(),
            settings.duration(),
            failures);
    return ScenarioResult.of(name, client, describe(shape), window);
  }

  private void runConfig(LeanTransport transport, List<String> names) throws Exception {
    try (LeanConfigClient seeder = new LeanConfigClient(transport, 2, failures);
        ConfigClient client = configClient(transport)) {
      ConfigScenarios scenarios =
          new ConfigScenarios(settings, client, clientMode, server, failures);
      long t0 = System.nanoTime();
      scenarios.seed(seeder);
      log.printf(
          "load: seeded %d configs of %d bytes in %.1f s%n",
          settings.configs(), settings.configBytes(), (System.nanoTime() - t0) / 1e9);
      for (String name : names) {
        log.printf("load: %s (%s client)%n", name, clientMode);
        switch (name) {
          case "config-query" -> shapes(name, scenarios.query(), scenarios::run);
          case "config-publish" -> shapes(name, scenarios.publish(), scenarios::run);
          case "config-listen" -> sink.accept(scenarios.listen());
          default -> throw new IllegalStateException(name);
        }
      }
    }
  }

  private void runNaming(LeanTransport transport, List<String> names) throws Exception {
    try (LeanNamingClient seeder = new LeanNamingClient(transport, 1, failures);
        NamingClient client = namingClient(transport)) {
      NamingScenarios scenarios =
          new NamingScenarios(settings, client, clientMode, server, failures);
      for (String name : names) {
        log.printf("load: %s (%s client)%n", name, clientMode);
        switch (name) {
          case "naming-register" -> shapes(name, scenarios.register(), scenarios::run);
          case "naming-query" -> {
            try (AutoCloseable seeded = scenarios.seedServices(seeder)) {
              shapes(name, scenarios.query(), scenarios::run);
            }
          }
          case "naming-push" -> sink.accept(scenarios.push());
          default -> throw new IllegalStateException(name);
        }
      }
    }
  }

  @FunctionalInterface
  private interface ShapeRunner {
    ScenarioResult run(String name, LoadLoop.Shape shape, LoadLoop.Operation operation)
        throws InterruptedException;
  }

  private void shapes(String name, LoadLoop.Operation operation, ShapeRunner runner)
      throws InterruptedException {
    double rate = settings.rate();
    if (loop.equals(CLOSED) || loop.equals(BOTH)) {
      ScenarioResult closed =
          runner.run(name, new LoadLoop.Closed(settings.concurrency()), operation);
      sink.accept(closed);
      if (rate <= 0) {
        rate = DEFAULT_OPEN_SHARE * ((Number) closed.get("opsPerSec")).doubleValue();
      }
    }
    if (loop.equals(OPEN) || loop.equals(BOTH)) {
      if (rate <= 0) {
        throw new IllegalArgumentException("--loop open needs --rate");
      }
      sink.accept(runner.run(name, new LoadLoop.Open(rate, settings.maxInFlight()), operation));
    }
  }

  private ConfigClient configClient(LeanTransport transport) throws Exception {
    if (clientMode.equals(LEAN)) {
      return new LeanConfigClient(transport, settings.connections(), failures);
    }
    return new OfficialConfigClient(
        officialProperties(), settings.connections(), callers(settings.concurrency()), failures);
  }

  private NamingClient namingClient(LeanTransport transport) throws Exception {
    if (clientMode.equals(LEAN)) {
      return new LeanNamingClient(transport, settings.connections(), failures);
    }
    return new OfficialNamingClient(
        officialProperties(), settings.connections(), callers(settings.concurrency()), failures);
  }

  private Supplier<Properties> officialProperties() {
    return officialProperties(settings.servers());
  }

  /**
   * nacos-client's settings for each new {@code ConfigService} or {@code NamingService}: each is
   * given one server, the next in turn, as the lean driver's connections are. Given the whole list,
   * every instance would start on a server of its own random choice, and four instances over three
   * nodes would load them unevenly, differently in every run.
   */
  static Supplier<Properties> officialProperties(List<Settings.Endpoint> servers) {
    AtomicInteger next = new AtomicInteger();
    return () -> {
      Properties properties = new Properties();
      properties.put(
          PropertyKeyConst.SERVER_ADDR,
          servers.get(Math.floorMod(next.getAndIncrement(), servers.size())).httpAddress());
      return properties;
    };
  }

  private static ExecutorService callers(int threads) {
    return Executors.newFixedThreadPool(
        threads,
        runnable -> {
          Thread thread = new Thread(runnable, "official-client-caller");
          thread.setDaemon(true);
          return thread;
        });
  }

  /** Appends one JSON line per result to {@code file}. */
  static Consumer<ScenarioResult> appendTo(Path file) {
    return result -> {
      try {
        Files.writeString(
            file,
            result.toJson() + "\n",
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    };
  }

  static List<String> expand(List<String> names) {
    List<String> out = new ArrayList<>();
    for (String name : names) {
      switch (name) {
        case "config" -> out.addAll(CONFIG);
        case "naming" -> out.addAll(NAMING);
        case "all" -> {
          out.addAll(CONFIG);
          out.addAll(NAMING);
        }
        default -> out.add(name);
      }
    }
    return out;
  }
}
