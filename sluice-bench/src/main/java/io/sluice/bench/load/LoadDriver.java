package io.sluice.bench.load;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The load driver for Nacos-compatible servers (sluice-server or a stock Nacos): the config and
 * naming scenarios of the MSE-vs-Nacos report, in the official nacos-client or the lean gRPC
 * driver, closed- and open-loop, with the server's CPU time per operation and its memory read from
 * {@code /proc}. See {@code sluice-bench/README.md} for the commands behind the published figures.
 *
 * <pre>
 * java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.load.LoadDriver run \
 *     --server 127.0.0.1:8848 --server-pid $(pgrep -f SluiceCommand) --scenarios config
 * </pre>
 */
@Command(
    name = "load",
    mixinStandardHelpOptions = true,
    subcommands = {LoadDriver.Run.class, StartupProbe.class},
    description = "Load driver for Nacos-compatible servers (config and naming scenarios).")
public final class LoadDriver implements Runnable {
  @Override
  public void run() {
    CommandLine.usage(this, System.out);
  }

  public static void main(String[] args) {
    System.exit(execute(args, System.out, System.err));
  }

  /** Runs a command line and returns its exit code: 0 done, 1 errors seen, 2 bad usage. */
  public static int execute(String[] args, PrintStream out, PrintStream err) {
    quietOfficialClient();
    CommandLine line = new CommandLine(new LoadDriver());
    line.setOut(new java.io.PrintWriter(out, true));
    line.setErr(new java.io.PrintWriter(err, true));
    return line.execute(args);
  }

  /** Held so that java.util.logging keeps the level set on it (it holds loggers weakly). */
  private static final java.util.logging.Logger shadedGrpcLog =
      java.util.logging.Logger.getLogger("com.alibaba.nacos.shaded.io.grpc");

  /** The official client logs every connection at INFO; only trouble is worth seeing here. */
  static void quietOfficialClient() {
    shadedGrpcLog.setLevel(java.util.logging.Level.WARNING);
    System.setProperty("org.slf4j.simpleLogger.log.com.alibaba.nacos", "warn");
    System.setProperty(
        "JM.LOG.PATH",
        System.getProperty("JM.LOG.PATH", Path.of("target", "nacos-client-logs").toString()));
    System.setProperty(
        "JM.SNAPSHOT.PATH",
        System.getProperty("JM.SNAPSHOT.PATH", Path.of("target", "nacos-client").toString()));
  }

  /** {@code load run}: the scenarios. */
  @Command(
      name = "run",
      mixinStandardHelpOptions = true,
      sortOptions = false,
      description = {
        "Runs load scenarios against a Nacos-compatible server and prints one JSON line per",
        "scenario (stdout, lines starting with '{'), then a summary table."
      })
  static final class Run implements Callable<Integer> {
    @Option(
        names = "--server",
        split = ",",
        defaultValue = "127.0.0.1:8848",
        description = {
          "Server HTTP address host:port; gRPC is port + 1000 (default ${DEFAULT-VALUE}). A comma",
          "list (every node of a cluster): connections and client instances take them in turn."
        })
    List<String> servers;

    @Option(
        names = "--grpc-port",
        description = "gRPC port when it is not HTTP port + 1000 (one --server only).")
    Integer grpcPort;

    @Option(
        names = "--server-pid",
        split = ",",
        description = {
          "PID of the server process: CPU time, RSS and threads come from /proc. A comma list",
          "(every node of a cluster) reads them summed."
        })
    List<Long> serverPids;

    @Option(
        names = "--pin-server",
        paramLabel = "CPUS",
        description = "Pin every server thread to these CPUs (taskset list, e.g. 0).")
    String pinServer;

    @Option(
        names = "--pin-driver",
        paramLabel = "CPUS",
        description = "Pin this driver to these CPUs (e.g. 1).")
    String pinDriver;

    @Option(
        names = "--client",
        defaultValue = "lean",
        description = "lean (gRPC spoken directly) or official (nacos-client 2.3.2).")
    String client;

    @Option(
        names = "--scenarios",
        split = ",",
        defaultValue = "config",
        description =
            "Comma list of config-query, config-publish, config-listen, naming-register,"
                + " naming-query, naming-push, health-check (lean only: the keep-alive, what the"
                + " transport alone costs), or config / naming / all (default ${DEFAULT-VALUE}).")
    List<String> scenarios;

    @Option(
        names = "--loop",
        defaultValue = "both",
        description = "closed, open or both (default ${DEFAULT-VALUE}).")
    String loop;

    @Option(names = "--duration", defaultValue = "30", description = "Measured seconds.")
    double durationSeconds;

    @Option(names = "--warmup", defaultValue = "5", description = "Warm-up seconds.")
    double warmupSeconds;

    @Option(
        names = "--settle-max",
        defaultValue = "0",
        description =
            "After the warm-up, wait in 5 s steps while the driver's or the server's JIT compiler"
                + " threads still use more than 3%% of a core, at most this many seconds more"
                + " (default ${DEFAULT-VALUE}: do not wait). Results say how long the warm-up ran"
                + " (warmupSec) and whether the compilers had settled (jitSettled).")
    double settleMaxSeconds;

    @Option(
        names = "--concurrency",
        defaultValue = "64",
        description = "Closed loop: requests in flight (official client: caller threads).")
    int concurrency;

    @Option(
        names = "--connections",
        defaultValue = "4",
        description = "Connections (official: client instances) the load is spread over.")
    int connections;

    @Option(
        names = "--rate",
        defaultValue = "0",
        description = "Open loop: requests per second; 0 = 70%% of the closed loop's throughput.")
    double rate;

    @Option(
        names = "--max-in-flight",
        defaultValue = "10000",
        description = "Open loop: bound on outstanding requests.")
    int maxInFlight;

    @Option(names = "--configs", defaultValue = "6000", description = "Configs seeded.")
    int configs;

    @Option(names = "--config-bytes", defaultValue = "10", description = "Bytes per config.")
    int configBytes;

    @Option(names = "--listeners", defaultValue = "1000", description = "Listening clients.")
    int listeners;

    @Option(
        names = "--listens-per-client",
        defaultValue = "10",
        description = "Configs each listener listens to.")
    int listensPerClient;

    @Option(
        names = "--shared-listens",
        description = "All listeners listen to the same configs (fan-out), not spread ones.")
    boolean sharedListens;

    @Option(
        names = "--publish-rate",
        defaultValue = "50",
        description = "config-listen: publishes per second.")
    double publishRate;

    @Option(
        names = "--services",
        defaultValue = "1000",
        description = "naming-register / naming-query: services.")
    int services;

    @Option(
        names = "--push-services",
        defaultValue = "100",
        description = "naming-push: services (each with its providers and subscribers).")
    int pushServices;

    @Option(names = "--providers-per-service", defaultValue = "3")
    int providersPerService;

    @Option(names = "--subscribers-per-service", defaultValue = "3")
    int subscribersPerService;

    @Option(
        names = "--push-shared",
        description =
            "naming-push: providers-per-service provider applications and subscribers-per-service"
                + " subscriber applications, each on one connection covering every service"
                + " (default: a connection per provider and per subscriber).")
    boolean pushShared;

    @Option(
        names = "--churn-rate",
        defaultValue = "100",
        description = "naming-push: provider registrations/deregistrations per second.")
    double churnRate;

    @Option(names = "--metadata-bytes", defaultValue = "100", description = "Instance metadata.")
    int metadataBytes;

    @Option(
        names = "--io-threads",
        defaultValue = "1",
        description = "Lean driver: Netty event-loop threads shared by all connections.")
    int ioThreads;

    @Option(
        names = "--smoke",
        description =
            "A few seconds per scenario with small counts: proves the scenarios run, measures"
                + " nothing.")
    boolean smoke;

    @Option(names = "--out", description = "Also append the JSON lines to this file.")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      java.io.PrintWriter stdout = spec.commandLine().getOut();
      PrintStream log = System.err;
      if (!List.of(Scenarios.LEAN, Scenarios.OFFICIAL).contains(client)) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--client lean|official");
      }
      if (!List.of(Scenarios.CLOSED, Scenarios.OPEN, Scenarios.BOTH).contains(loop)) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--loop closed|open|both");
      }
      try {
        Scenarios.check(Scenarios.expand(scenarios), client);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
      Settings settings = settings();
      ProcessProbe serverProbe =
          serverPids == null
              ? null
              : new ProcessProbe(serverPids.stream().mapToLong(Long::longValue).toArray());
      if (pinServer != null) {
        if (serverProbe == null) {
          throw new CommandLine.ParameterException(
              spec.commandLine(), "--pin-server needs --server-pid");
        }
        serverProbe.pin(pinServer);
      }
      if (pinDriver != null) {
        ProcessProbe.self().pin(pinDriver);
      }
      log.printf(
          "load: %s client against %s (gRPC %s), server pid %s, %s%n",
          client,
          settings.serverAddress(),
          settings.servers().stream().map(e -> Integer.toString(e.grpcPort())).toList(),
          serverPids == null ? "unknown (no CPU/RSS figures)" : serverPids,
          smoke ? "smoke run" : settings.duration().toSeconds() + " s per scenario");
      Failures failures = new Failures(log);
      List<ScenarioResult> results = new ArrayList<>();
      java.util.function.Consumer<ScenarioResult> sink =
          result -> {
            results.add(result);
            stdout.println(result.toJson());
          };
      if (out != null) {
        sink = sink.andThen(Scenarios.appendTo(out));
      }
      new Scenarios(settings, client, loop, serverProbe, ioThreads, sink, log, failures)
          .run(Scenarios.expand(scenarios));
      stdout.println();
      stdout.print(ScenarioResult.table(results));
      stdout.flush();
      Map<String, Long> errors = failures.drain();
      long total = results.stream().mapToLong(ScenarioResult::errors).sum();
      if (!errors.isEmpty()) {
        log.println("load: failures by kind: " + errors);
      }
      return total == 0 ? 0 : 1;
    }

    Settings settings() {
      if (grpcPort != null && servers.size() != 1) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--grpc-port names the port of one --server, not of " + servers);
      }
      List<Settings.Endpoint> endpoints = new ArrayList<>();
      for (String server : servers) {
        String[] hostPort = server.split(":");
        int httpPort;
        try {
          httpPort = hostPort.length == 2 ? Integer.parseInt(hostPort[1]) : -1;
        } catch (NumberFormatException e) {
          httpPort = -1;
        }
        if (httpPort < 1 || httpPort > 64_535) {
          throw new CommandLine.ParameterException(
              spec.commandLine(), "--server host:port (port 1-64535), not '" + server + "'");
        }
        endpoints.add(
            new Settings.Endpoint(
                hostPort[0], httpPort, grpcPort != null ? grpcPort : httpPort + 1000));
      }
      boolean s = smoke;
      return new Settings(
          endpoints,
          s
              ? Warmup.fixed(seconds(0.5))
              : new Warmup(seconds(warmupSeconds), seconds(settleMaxSeconds)),
          seconds(s ? Math.min(2, durationSeconds) : durationSeconds),
          s ? Math.min(concurrency, 8) : concurrency,
          s ? Math.min(connections, 2) : connections,
          s && rate <= 0 ? 200 : rate,
          maxInFlight,
          s ? Math.min(configs, 200) : configs,
          configBytes,
          s ? Math.min(listeners, 20) : listeners,
          listensPerClient,
          sharedListens,
          s ? Math.min(publishRate, 20) : publishRate,
          s ? Math.min(services, 50) : services,
          s ? Math.min(pushServices, 10) : pushServices,
          providersPerService,
          subscribersPerService,
          pushShared,
          s ? Math.min(churnRate, 20) : churnRate,
          metadataBytes);
    }

    private static Duration seconds(double seconds) {
      return Duration.ofMillis(Math.round(seconds * 1000));
    }
  }
}
