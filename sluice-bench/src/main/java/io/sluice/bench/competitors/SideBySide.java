package io.sluice.bench.competitors;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.bench.load.lean.LeanConnection;
import io.sluice.bench.load.lean.LeanTransport;
import io.sluice.bench.load.lean.PushHandler;
import io.sluice.bench.load.lean.Requests;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Open-source Nacos and Sluice measured in one run: in each round, each server is started in turn
 * (the order alternates between rounds) on the same core, with a fresh data directory, and driven
 * by the same load driver ({@code LoadDriver run}, in a JVM of its own on the other core) in each
 * client mode, for the five operations of the reference report. Every result line of the driver is
 * appended to {@code --out} with the round, the server, the time and the load average around it;
 * {@code io.sluice.bench.report.PerformanceReport} turns those lines into the tables and charts of
 * docs/performance.md.
 *
 * <pre>
 * unshare -n sh -c 'ip link set lo up &amp;&amp; exec java -cp sluice-bench/target/benchmarks.jar \
 *     io.sluice.bench.competitors.SideBySide --nacos /path/to/nacos --rounds 3 \
 *     --out docs/perf/side-by-side.jsonl'
 * </pre>
 */
@Command(
    name = "side-by-side",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = "Nacos and Sluice, alternately, same pinning, same driver, same run.")
public final class SideBySide implements Callable<Integer> {
  /** Every driver run, however long, ends by then, or is stopped and counted as failed. */
  private static final long DRIVER_TIMEOUT_MINUTES = 15;

  /** How long a server (each node of a cluster, then the whole cluster) has to become ready. */
  private static final int READY_SECONDS = 300;

  /** Configs seeded for the config workload of a cluster (the driver's default, 6,000, alone). */
  static final int CLUSTER_CONFIGS = 1000;

  /** The keep-alive workload: the driver's scenario of the same name, lean driver only. */
  private static final String HEALTH_CHECK = "health-check";

  @Option(
      names = "--nacos",
      description = "Nacos server distribution directory (holds target/nacos-server.jar, conf/).")
  Path nacos;

  @Option(names = "--sluice", defaultValue = "bin/sluice", description = "The Sluice launcher.")
  Path sluice;

  @Option(
      names = "--sluice-skip-build",
      description = "Do not let bin/sluice rebuild the server (it was just built).")
  boolean sluiceSkipBuild;

  @Option(
      names = "--sluice-arg",
      description =
          "One more argument for `bin/sluice server` (repeat it), e.g. --sluice-arg=--grpc-transport"
              + " --sluice-arg=grpc-java; recorded with every result as sluiceArgs.")
  List<String> sluiceArgs = new ArrayList<>();

  @Option(
      names = "--servers",
      split = ",",
      defaultValue = "nacos,sluice",
      description = "Servers, in the order of the first round (default ${DEFAULT-VALUE}).")
  List<String> servers;

  @Option(
      names = "--clients",
      split = ",",
      defaultValue = "lean,official",
      description = "Driver client modes (default ${DEFAULT-VALUE}).")
  List<String> clients;

  @Option(
      names = "--workloads",
      split = ",",
      defaultValue = "config,register,query,push",
      description =
          "Of config, register, query, push, health-check (default ${DEFAULT-VALUE})."
              + " health-check is the keep-alive, which neither server's store sees: the transport's"
              + " own cost per call. Lean driver only; the official client's runs skip it.")
  List<String> workloads;

  @Option(
      names = "--nodes",
      defaultValue = "1",
      description =
          "1: each server standalone (default). 3 or more: each server as a cluster of that many"
              + " nodes on 127.0.0.1, every node pinned to --server-cpus, the driver's connections"
              + " and client instances spread over the nodes in turn, the server's CPU and memory"
              + " summed over them.")
  int nodes;

  @Option(names = "--rounds", defaultValue = "3")
  int rounds;

  @Option(names = "--duration", defaultValue = "15", description = "Measured seconds per scenario.")
  int duration;

  @Option(names = "--warmup", defaultValue = "5", description = "Warm-up seconds per scenario.")
  int warmup;

  @Option(
      names = "--settle-max",
      defaultValue = "120",
      description =
          "After the warm-up, up to this many seconds more while the driver's or the server's JIT"
              + " compiler threads are still busy (default ${DEFAULT-VALUE}; 0: fixed warm-up)."
              + " The same rule for both servers: the official client's driver, saturated by a"
              + " fast server, was still compiling its hot paths after 45 s.")
  int settleMax;

  @Option(
      names = "--open-rate",
      defaultValue = "0",
      description =
          "Drive config, register, query and health-check at this fixed rate (requests per"
              + " second, open loop) instead of the closed loop, so both servers do the same work"
              + " per second and their CPU is compared at equal throughput (default 0: closed"
              + " loop). The push always runs at its churn rate.")
  double openRate;

  @Option(names = "--server-cpus", defaultValue = "0", description = "taskset list for servers.")
  String serverCpus;

  @Option(names = "--driver-cpus", defaultValue = "1", description = "taskset list for drivers.")
  String driverCpus;

  @Option(names = "--nacos-heap", defaultValue = "1g")
  String nacosHeap;

  @Option(
      names = "--java",
      description = "java for Nacos and the drivers (default: the one running this harness).")
  String java;

  @Option(
      names = "--push-services",
      defaultValue = "1000",
      description =
          "push: services (3 providers and 3 subscribers each; default ${DEFAULT-VALUE}).")
  int pushServices;

  @Option(
      names = "--churn-rate",
      defaultValue = "1000",
      description =
          "push: changes per second over all services (default ${DEFAULT-VALUE}); keep"
              + " push-services / churn-rate above both servers' merge delays (Nacos 500 ms).")
  double churnRate;

  @Option(names = "--smoke", description = "Pass --smoke to the driver: proves the wiring only.")
  boolean smoke;

  @Option(names = "--work", description = "Where servers' data and logs go (default: a temp dir).")
  Path work;

  @Option(names = "--out", required = true, description = "JSON lines are appended here.")
  Path out;

  private final ObjectMapper json = new ObjectMapper();
  private final PrintStream log = System.err;

  public static void main(String[] args) {
    System.exit(new CommandLine(new SideBySide()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    String javaBin = java != null ? java : ProcessHandle.current().info().command().orElse("java");
    List<ServerUnderTest> order = new ArrayList<>();
    for (String name : servers) {
      order.add(
          switch (name) {
            case "nacos" -> {
              if (nacos == null) {
                throw new CommandLine.ParameterException(
                    new CommandLine(this), "--nacos DIR is needed to run nacos");
              }
              yield new NacosUnderTest(nacos.toAbsolutePath(), javaBin, nacosHeap);
            }
            case "sluice" ->
                new SluiceUnderTest(
                    sluice.toAbsolutePath(), sluiceSkipBuild, List.copyOf(sluiceArgs));
            default -> throw new IllegalArgumentException("unknown server " + name);
          });
    }
    workloads.forEach(this::workloadArgs); // an unknown workload fails before a server starts
    if (nodes != 1 && nodes < 3) {
      throw new CommandLine.ParameterException(
          new CommandLine(this),
          "--nodes is 1 (standalone) or 3 or more (a cluster that survives a node's loss), not "
              + nodes);
    }
    Path root = work != null ? work : Files.createTempDirectory("side-by-side");
    String run = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    log.printf(
        "side-by-side %s: servers %s (%s), clients %s, workloads %s, %d rounds, %d s + %d s"
            + " warm-up,"
            + " (up to %d s more until both JIT compilers are quiet), servers on CPU %s, drivers on"
            + " CPU %s, work in %s%n",
        run,
        servers,
        nodes == 1 ? "standalone" : nodes + "-node clusters",
        clients,
        workloads,
        rounds,
        duration,
        warmup,
        settleMax,
        serverCpus,
        driverCpus,
        root);
    int failed = 0;
    for (int round = 1; round <= rounds; round++) {
      List<ServerUnderTest> thisRound = new ArrayList<>(order);
      List<String> clientsThisRound = new ArrayList<>(clients);
      if (round % 2 == 0) {
        Collections.reverse(thisRound);
        Collections.reverse(clientsThisRound);
      }
      for (ServerUnderTest server : thisRound) {
        failed += measure(run, round, server, clientsThisRound, javaBin, root);
      }
    }
    log.printf("side-by-side %s: done, %d failed driver runs; results in %s%n", run, failed, out);
    return failed == 0 ? 0 : 1;
  }

  /**
   * One start of one server (every node of it, for a cluster), every client mode and workload
   * against it; returns failures.
   */
  private int measure(
      String run,
      int round,
      ServerUnderTest server,
      List<String> clientModes,
      String javaBin,
      Path root)
      throws Exception {
    Path dir = root.resolve(server.name() + "-round" + round);
    Files.createDirectories(dir);
    List<Integer> httpPorts = freePorts(server, nodes);
    List<Process> processes = new ArrayList<>();
    int failures = 0;
    try {
      double startSeconds;
      try {
        startSeconds = start(server, round, dir, httpPorts, processes);
      } catch (IllegalStateException notReady) {
        log.printf("round %d: %s did not start: %s%n", round, server.name(), notReady.getMessage());
        return ++failures;
      }
      for (String client : clientModes) {
        for (String workload : workloads) {
          if (workload.equals(HEALTH_CHECK) && !client.equals("lean")) {
            continue; // nacos-client has no call for it: sent from its own idle timer only
          }
          if (!runDriver(
              run,
              round,
              server,
              client,
              workload,
              httpPorts,
              processes,
              startSeconds,
              javaBin,
              dir)) {
            failures++;
          }
        }
      }
    } finally {
      for (Process process : processes) {
        process.destroy();
      }
      for (Process process : processes) {
        stop(process);
      }
      if (failures == 0) {
        deleteTree(dir);
      } else {
        log.printf("round %d: %s kept for a look: %s%n", round, server.name(), dir);
      }
    }
    return failures;
  }

  /**
   * Starts the server's nodes (one, standalone) into {@code processes} and waits until it is ready:
   * standalone, until it answers a handshake; a cluster, until it takes a write through every node
   * and serves it back from every node. Returns the seconds that took.
   *
   * @throws IllegalStateException when a node exits or the server is not ready in time
   */
  private double start(
      ServerUnderTest server, int round, Path dir, List<Integer> httpPorts, List<Process> processes)
      throws Exception {
    List<Integer> cluster = nodes == 1 ? List.of() : httpPorts;
    long launched = System.nanoTime();
    for (int node = 0; node < nodes; node++) {
      Path nodeDir = nodeDir(dir, node);
      Files.createDirectories(nodeDir);
      List<String> command = new ArrayList<>(List.of("taskset", "-c", serverCpus));
      command.addAll(server.command(nodeDir, httpPorts.get(node), cluster));
      log.printf(
          "round %d: starting %s%s on port %d (CPU %s)%n",
          round,
          server.name(),
          nodes == 1 ? "" : " node " + (node + 1),
          httpPorts.get(node),
          serverCpus);
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .directory(nodeDir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(nodeDir.resolve("server.out").toFile());
      builder.environment().putAll(server.environment());
      Process process = builder.start();
      processes.add(process);
      if (node == 0 && nodes > 1) {
        // bin/sluice may build the server first: one build, not one per node at once.
        awaitJvm(process, nodeDir.resolve("server.out"));
      }
    }
    for (int node = 0; node < nodes; node++) {
      awaitReady(
          processes.get(node),
          httpPorts.get(node) + 1000,
          nodeDir(dir, node).resolve("server.out"));
    }
    if (nodes > 1) {
      awaitClusterWrites(httpPorts, processes);
    }
    double startSeconds = (System.nanoTime() - launched) / 1e9;
    log.printf(
        "round %d: %s ready after %.1f s (pid %s)%n",
        round, server.name(), startSeconds, pids(processes));
    return startSeconds;
  }

  /** A node's directory: the server's own when it is standalone. */
  private Path nodeDir(Path dir, int node) {
    return nodes == 1 ? dir : dir.resolve("node-" + (node + 1));
  }

  private static String pids(List<Process> processes) {
    return String.join(",", processes.stream().map(p -> Long.toString(p.pid())).toList());
  }

  private boolean runDriver(
      String run,
      int round,
      ServerUnderTest server,
      String client,
      String workload,
      List<Integer> httpPorts,
      List<Process> processes,
      double startSeconds,
      String javaBin,
      Path dir)
      throws Exception {
    Path lines = dir.resolve(client + "-" + workload + ".jsonl");
    List<String> command =
        new ArrayList<>(
            List.of(
                "taskset",
                "-c",
                driverCpus,
                javaBin,
                "-cp",
                System.getProperty("java.class.path"),
                "-DJM.LOG.PATH=" + dir.resolve("nacos-client-logs"),
                "-DJM.SNAPSHOT.PATH=" + dir.resolve("nacos-client"),
                "io.sluice.bench.load.LoadDriver",
                "run",
                "--server",
                String.join(",", httpPorts.stream().map(p -> "127.0.0.1:" + p).toList()),
                "--server-pid",
                pids(processes),
                "--client",
                client,
                "--loop",
                openRate > 0 && !workload.equals("push") ? "open" : "closed",
                "--duration",
                Integer.toString(duration),
                "--warmup",
                Integer.toString(warmup),
                "--settle-max",
                Integer.toString(settleMax),
                "--out",
                lines.toString()));
    command.addAll(workloadArgs(workload));
    if (nodes > 1) {
      // Two connections (client instances) per node, wherever the seeding ones went first.
      command.addAll(List.of("--connections", Integer.toString(2 * nodes)));
      if (workload.equals("config")) {
        // A 3-node Nacos on one core commits ~35 publishes a second: 6,000 would take 3 minutes.
        command.addAll(List.of("--configs", Integer.toString(CLUSTER_CONFIGS)));
      }
    }
    if (openRate > 0 && !workload.equals("push")) {
      command.addAll(List.of("--rate", Double.toString(openRate)));
    }
    if (smoke) {
      command.add("--smoke");
    }
    double[] loadBefore = loadAverage();
    String startedAt = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    log.printf(
        "round %d: %s, %s client, %s (load average %.2f)%n",
        round, server.name(), client, workload, loadBefore[0]);
    Process driver =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve(client + "-" + workload + ".out").toFile())
            .start();
    boolean finished = driver.waitFor(DRIVER_TIMEOUT_MINUTES, TimeUnit.MINUTES);
    if (!finished) {
      driver.destroyForcibly().waitFor();
    }
    double[] loadAfter = loadAverage();
    int exit = finished ? driver.exitValue() : -1;
    if (!Files.exists(lines)) {
      log.printf(
          "round %d: %s %s %s produced no result (exit %d)%n",
          round, server.name(), client, workload, exit);
      return false;
    }
    for (String line : Files.readAllLines(lines, StandardCharsets.UTF_8)) {
      if (!line.startsWith("{")) {
        continue;
      }
      ObjectNode result = (ObjectNode) json.readTree(line);
      ObjectNode record = json.createObjectNode();
      record.put("run", run);
      record.put("round", round);
      record.put("server", server.name());
      record.put("nodes", nodes);
      if (server instanceof SluiceUnderTest sluiceServer && !sluiceServer.extraArgs().isEmpty()) {
        record.put("sluiceArgs", String.join(" ", sluiceServer.extraArgs()));
      }
      record.put("workload", workload);
      record.put("startedAt", startedAt);
      record.put("loadAvg1Before", loadBefore[0]);
      record.put("loadAvg1After", loadAfter[0]);
      record.put("serverStartSec", Math.round(startSeconds * 100) / 100.0);
      record.put("driverExit", exit);
      record.setAll(result);
      Files.writeString(
          out,
          json.writeValueAsString(record) + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      log.printf(
          "  %s %s: %s ops/s, %s per server-CPU-s, p50 %s ms, p99 %s ms, errors %s, RSS %s MB,"
              + " warm-up %s s (JIT settled: %s)%n",
          result.path("scenario").asText(),
          result.path("load").asText(),
          result.path("opsPerSec").asText(),
          result.has("pushesPerServerCpuSec")
              ? result.path("pushesPerServerCpuSec").asText() + " pushes"
              : result.path("opsPerServerCpuSec").asText(),
          result.path("p50Ms").asText(),
          result.path("p99Ms").asText(),
          result.path("errors").asText(),
          result.path("serverRssMb").asText(),
          result.path("warmupSec").asText(),
          result.path("jitSettled").asText());
    }
    return exit == 0;
  }

  /** The driver options of each workload; the rest (duration, loop, server) are common. */
  List<String> workloadArgs(String workload) {
    return switch (workload) {
      case "config" -> List.of("--scenarios", "config-query,config-publish");
      case HEALTH_CHECK -> List.of("--scenarios", HEALTH_CHECK);
      case "register" ->
          List.of(
              "--scenarios", "naming-register", "--services", "1000", "--metadata-bytes", "100");
      case "query" ->
          List.of(
              "--scenarios",
              "naming-query",
              "--services",
              "100",
              "--providers-per-service",
              "10",
              "--metadata-bytes",
              "100");
      case "push" ->
          List.of(
              "--scenarios",
              "naming-push",
              "--push-shared",
              "--push-services",
              Integer.toString(pushServices),
              "--providers-per-service",
              "3",
              "--subscribers-per-service",
              "3",
              "--churn-rate",
              Double.toString(churnRate),
              "--metadata-bytes",
              "100");
      default -> throw new IllegalArgumentException("unknown workload " + workload);
    };
  }

  /**
   * Waits until the server answers a real client handshake on its gRPC port ({@code
   * ServerCheckRequest}, then {@code SetupAckRequest} on the stream).
   */
  private static void awaitReady(Process process, int grpcPort, Path serverLog) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READY_SECONDS);
    try (LeanTransport transport = new LeanTransport("127.0.0.1", grpcPort, 1, 2_000)) {
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          throw new IllegalStateException(
              "server exited with " + process.exitValue() + "; see " + serverLog);
        }
        try {
          LeanConnection connection =
              transport.connectNow(LeanTransport.namingLabels(), PushHandler.IGNORE);
          connection.close();
          return;
        } catch (RuntimeException notYet) {
          Thread.sleep(250);
        }
      }
    }
    throw new IllegalStateException(
        "server not ready after " + READY_SECONDS + " s; see " + serverLog);
  }

  /**
   * Waits until the launcher has exec'd the server's JVM (it builds the server first when the jar
   * is missing or stale): the process's command is then {@code java}.
   */
  private static void awaitJvm(Process process, Path serverLog) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "server exited with " + process.exitValue() + "; see " + serverLog);
      }
      String command = process.info().command().orElse("");
      if (command.endsWith("/java") || command.equals("java")) {
        return;
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException("server JVM not started within 10 min; see " + serverLog);
  }

  /**
   * Waits until a cluster takes a config write through each node and serves every one of them back
   * from every node: its replication group has a leader and each node has caught up. Until then a
   * driver's first writes would fail or its reads miss, and the start-up would be measured as the
   * servers' errors.
   */
  private static void awaitClusterWrites(List<Integer> httpPorts, List<Process> processes)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READY_SECONDS);
    List<InetSocketAddress> grpc =
        httpPorts.stream()
            .map(p -> InetSocketAddress.createUnresolved("127.0.0.1", p + 1000))
            .toList();
    String content = "ready " + System.nanoTime();
    try (LeanTransport transport = new LeanTransport(grpc, 1, 5_000)) {
      List<LeanConnection> connections = new ArrayList<>();
      try {
        for (int i = 0; i < grpc.size(); i++) {
          connections.add(transport.connectNow(LeanTransport.configLabels(), PushHandler.IGNORE));
        }
        for (int writer = 0; writer < connections.size(); writer++) {
          String dataId = "side-by-side-ready-" + writer;
          untilDone(
              deadline,
              processes,
              connections.get(writer),
              c ->
                  c.call(
                      "ConfigPublishRequest",
                      Requests.configPublish(
                          c.nextRequestId(), dataId, "DEFAULT_GROUP", "", content)));
          for (LeanConnection reader : connections) {
            untilDone(
                deadline,
                processes,
                reader,
                c ->
                    c.call(
                            "ConfigQueryRequest",
                            Requests.configQuery(c.nextRequestId(), dataId, "DEFAULT_GROUP", ""))
                        .thenApply(
                            response -> {
                              if (!new String(response.body(), StandardCharsets.UTF_8)
                                  .contains(content)) {
                                throw new IllegalStateException("not there yet");
                              }
                              return response;
                            }));
          }
        }
      } finally {
        connections.forEach(LeanConnection::close);
      }
    }
  }

  private static void untilDone(
      long deadline,
      List<Process> processes,
      LeanConnection connection,
      java.util.function.Function<LeanConnection, CompletableFuture<?>> call)
      throws InterruptedException {
    RuntimeException last = null;
    while (System.nanoTime() < deadline) {
      for (Process process : processes) {
        if (!process.isAlive()) {
          throw new IllegalStateException("a node exited with " + process.exitValue());
        }
      }
      try {
        call.apply(connection).get(5, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException | TimeoutException e) {
        last = new IllegalStateException(e.getCause() != null ? e.getCause() : e);
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException(
        "the cluster did not take and serve a write within " + READY_SECONDS + " s", last);
  }

  private void stop(Process process) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      log.println("server did not stop within 60 s of SIGTERM; killing it");
      process.destroyForcibly().waitFor();
    }
  }

  /**
   * An HTTP port per node ({@code base}, {@code base + 10}, ...) whose gRPC port and the server's
   * other ports are all free as well.
   */
  private static List<Integer> freePorts(ServerUnderTest server, int nodes) throws IOException {
    for (int attempt = 0; attempt < 200; attempt++) {
      int base = 21_000 + ThreadLocalRandom.current().nextInt(8_000 - 10 * nodes);
      List<Integer> http = new ArrayList<>();
      List<Integer> ports = new ArrayList<>();
      for (int node = 0; node < nodes; node++) {
        int port = base + 10 * node;
        http.add(port);
        ports.addAll(List.of(port, port + 1000));
        ports.addAll(server.extraPorts(port, nodes > 1));
      }
      if (ports.stream().allMatch(SideBySide::isFree)) {
        return http;
      }
    }
    throw new IOException("no free port set found");
  }

  private static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("0.0.0.0"))) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The 1-, 5- and 15-minute load averages of the machine ({@code -1} each when unknown). */
  public static double[] loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return new double[] {
        Double.parseDouble(fields[0]), Double.parseDouble(fields[1]), Double.parseDouble(fields[2])
      };
    } catch (IOException | RuntimeException e) {
      return new double[] {-1, -1, -1};
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
