package io.sluice.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;

/**
 * A sluice-server cluster of real processes on loopback (node N on 127.0.0.(N+1)), each started as
 * {@code sluice server --cluster-conf FILE} over its own data directory, so tests can SIGKILL,
 * SIGSTOP and restart nodes. Test nodes run small (256 MB heap, C1 only) with short election
 * timeouts, since three JVMs and the test share two cores.
 */
public final class ClusterProcesses implements AutoCloseable {
  /** Lower election timeout of test nodes (upper: twice it). */
  public static final int ELECTION_TIMEOUT_MILLIS = 500;

  /** Silence after which a test node's ephemeral instances are removed (default 10 s). */
  public static final int OWNER_TIMEOUT_MILLIS = 3_000;

  /**
   * Log entries between snapshots on test nodes (default 10,000), so a test can make a node fall
   * behind the purged log with a few thousand writes.
   */
  public static final int SNAPSHOT_EVERY_ENTRIES = 500;

  private static final String[] JVM_OPTIONS = {
    "-Xmx256m",
    "-XX:TieredStopAtLevel=1",
    "-XX:+UseSerialGC",
    "-Xss512k",
    "-Djava.util.concurrent.ForkJoinPool.common.parallelism=4"
  };

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path work;
  private final Path clusterConf;
  private final int[] ports;
  private final ServerProcess[] nodes;
  private final List<Map.Entry<Integer, ServerProcess>> everyRun = new ArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** How many nodes form the cluster at start; nodes from this index on join later. */
  private final int founders;

  /** Each node's cluster list: the founders', or for a joiner the founders' plus itself. */
  private final Path[] clusterConfs;

  /** Extra {@code sluice server} arguments and environment of every node. */
  private final List<String> extraArguments;

  private final Map<String, String> environment;

  private ClusterProcesses(
      Path work,
      int[] ports,
      int founders,
      List<String> extraArguments,
      Map<String, String> environment)
      throws IOException {
    this.work = work;
    this.extraArguments = List.copyOf(extraArguments);
    this.environment = Map.copyOf(environment);
    this.ports = ports;
    this.founders = founders;
    this.nodes = new ServerProcess[ports.length];
    this.clusterConfs = new Path[ports.length];
    this.clusterConf = work.resolve("cluster.conf");
    StringBuilder conf = new StringBuilder("# written by ClusterProcesses\n");
    for (int node = 0; node < founders; node++) {
      conf.append(address(node)).append('\n');
    }
    Files.writeString(clusterConf, conf.toString());
    for (int node = 0; node < ports.length; node++) {
      if (node < founders) {
        clusterConfs[node] = clusterConf;
      } else {
        clusterConfs[node] = work.resolve("cluster-" + node + ".conf");
        Files.writeString(clusterConfs[node], conf + address(node) + "\n");
      }
    }
  }

  /** Starts {@code size} nodes at once and waits until every one says it is ready. */
  public static ClusterProcesses start(Path work, int size) throws Exception {
    return start(work, size, 0);
  }

  /**
   * Starts {@code size} nodes at once and waits until every one says it is ready; {@code joiners}
   * more get ports and addresses (indexes {@code size} on) and start only with {@link
   * #launchJoiner}, each with the founders and itself as its cluster list.
   */
  public static ClusterProcesses start(Path work, int size, int joiners) throws Exception {
    return start(work, size, joiners, List.of(), Map.of());
  }

  /**
   * {@link #start(Path, int, int)}, each node with extra arguments and environment variables.
   *
   * <p>The ports come from {@link FreePorts#onHttpPorts}: when a node cannot bind one of its ports
   * (HTTP, gRPC + 1000, Raft − 1000), every node is stopped, the data directories (whose Raft
   * groups name the old ports) are wiped, and the cluster starts again on other ports.
   */
  public static ClusterProcesses start(
      Path work,
      int size,
      int joiners,
      List<String> extraArguments,
      Map<String, String> environment)
      throws Exception {
    return FreePorts.onHttpPorts(
        size + joiners,
        ports -> {
          for (int node = 0; node < ports.length; node++) {
            deleteRecursively(work.resolve("node-" + node));
          }
          ClusterProcesses cluster =
              new ClusterProcesses(work, ports, size, extraArguments, environment);
          try {
            for (int i = 0; i < size; i++) {
              cluster.launch(i);
            }
            for (int i = 0; i < size; i++) {
              cluster.awaitReady(i);
            }
          } catch (IOException | InterruptedException | RuntimeException | Error e) {
            cluster.close();
            throw e;
          }
          return cluster;
        });
  }

  /** The founders: the nodes started together as the cluster. */
  public int size() {
    return founders;
  }

  /**
   * Starts joiner {@code node} (an index from {@link #size()} on) with the founders and itself as
   * its cluster list, and returns at once: it says it is ready only once the cluster has added it.
   */
  public void launchJoiner(int node) throws IOException {
    if (node < founders || node >= ports.length) {
      throw new IllegalArgumentException("node " + node + " is not a joiner");
    }
    launch(node);
  }

  /**
   * Starts {@code node} over its data directory with its cluster list, and returns at once (it may
   * wait to be added, or refuse to start).
   */
  public void launchOnly(int node) throws IOException {
    launch(node);
  }

  /**
   * Gives {@code node} a cluster list of its own from now on (the members' addresses, in order), as
   * an operator updates a node's {@code cluster.conf} after a membership change.
   */
  public void setClusterList(int node, List<Integer> members) throws IOException {
    StringBuilder conf = new StringBuilder("# written by ClusterProcesses for node " + node + "\n");
    for (int member : members) {
      conf.append(address(member)).append('\n');
    }
    clusterConfs[node] = work.resolve("cluster-" + node + "-" + everyRun.size() + ".conf");
    Files.writeString(clusterConfs[node], conf.toString());
  }

  /** Deletes a stopped node's data directory, as a replacement machine would start empty. */
  public void wipeDataDirectory(int node) throws IOException {
    if (nodes[node] != null && nodes[node].isAlive()) {
      throw new IllegalStateException("node " + node + " still runs");
    }
    deleteRecursively(work.resolve("node-" + node));
  }

  private static void deleteRecursively(Path data) throws IOException {
    if (!Files.exists(data)) {
      return;
    }
    try (var files = Files.walk(data)) {
      for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    }
  }

  /** Waits until {@code node} says it is ready. */
  public void awaitReady(int node, int seconds) throws InterruptedException {
    nodes[node].awaitOutput("sluice server ready", seconds);
  }

  public int port(int node) {
    return ports[node];
  }

  /**
   * Node N listens on 127.0.0.(N+1): the official client tells servers apart by address when a
   * server redirects it (a rebalance), so nodes on one address could not be told apart.
   */
  public String host(int node) {
    return "127.0.0.%d".formatted(node + 1);
  }

  public String address(int node) {
    return host(node) + ":" + ports[node];
  }

  /** Every node's address, comma-separated, as a client's server list. */
  public String addresses() {
    StringJoiner all = new StringJoiner(",");
    for (int i = 0; i < founders; i++) {
      all.add(address(i));
    }
    return all.toString();
  }

  public String baseUri(int node) {
    return "http://" + address(node) + "/nacos";
  }

  public ServerProcess process(int node) {
    return nodes[node];
  }

  /** Starts (or restarts) one node over its data directory; returns once it is ready. */
  public void restart(int node) throws IOException, InterruptedException {
    launch(node);
    awaitReady(node);
  }

  /** SIGTERM: the node snapshots and closes cleanly, as an operator's restart stops it. */
  public void stop(int node) throws InterruptedException {
    nodes[node].close();
  }

  public void kill(int node) throws InterruptedException {
    nodes[node].kill();
  }

  /** The node every live node names as leader, once they agree; waits up to {@code seconds}. */
  public int awaitLeader(int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    String lastSeen = "nothing";
    while (System.nanoTime() < deadline) {
      Set<String> named = new HashSet<>();
      boolean everyLiveNodeAnswered = true;
      for (int i = 0; i < ports.length; i++) {
        if (nodes[i] == null || !nodes[i].isAlive()) {
          continue;
        }
        try {
          String leader = leaderAccordingTo(i);
          if (leader == null) {
            everyLiveNodeAnswered = false;
          } else {
            named.add(leader);
          }
        } catch (IOException e) {
          everyLiveNodeAnswered = false;
        }
      }
      lastSeen = named.toString();
      if (everyLiveNodeAnswered && named.size() == 1) {
        String leader = named.iterator().next();
        for (int i = 0; i < ports.length; i++) {
          if (leader.equals(address(i))) {
            return i;
          }
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no leader agreed on within " + seconds + " s; last seen " + lastSeen);
  }

  /** What a test waits for; may throw while the cluster changes under it. */
  @FunctionalInterface
  public interface Condition {
    boolean holds() throws Exception;
  }

  /**
   * Polls {@code condition} every 50 ms until it holds; fails after {@code seconds}. A poll that
   * throws (a request to a busy or restarting node timed out or was refused) counts as "not yet":
   * the last such exception is the failure's cause.
   */
  public static void awaitCondition(Condition condition, int seconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    Exception lastFailure = null;
    while (true) {
      try {
        if (condition.holds()) {
          return;
        }
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        lastFailure = e;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within " + seconds + " s", lastFailure);
      }
      Thread.sleep(50);
    }
  }

  /** The HTTP address of the leader {@code node} names in the cluster endpoint, or null. */
  public String leaderAccordingTo(int node) throws IOException, InterruptedException {
    JsonNode members = JSON.readTree(get(node, "/v1/core/cluster/nodes").body()).get("data");
    for (JsonNode member : members) {
      String leader =
          member
              .path("extendInfo")
              .path("raftMetaData")
              .path("metaDataMap")
              .path("sluice")
              .path("leader")
              .asText(null);
      if (leader == null) {
        return null;
      }
      for (JsonNode candidate : members) {
        if (leader.equals(
            candidate.get("ip").asText()
                + ":"
                + candidate.path("extendInfo").get("raftPort").asText())) {
          return candidate.get("address").asText();
        }
      }
    }
    return null;
  }

  public HttpResponse<String> get(int node, String pathAndQuery)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(baseUri(node) + pathAndQuery))
            .timeout(Duration.ofSeconds(10))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  /** A POST that may be held by the server (a long-poll); answered on a client thread. */
  public java.util.concurrent.CompletableFuture<HttpResponse<String>> postFormAsync(
      int node, String path, String form, String... headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(baseUri(node) + path))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return http.sendAsync(
        request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  /** A POST or DELETE that may take up to {@code timeout} (a membership change). */
  public HttpResponse<String> send(
      int node, String method, String pathAndQuery, String form, Duration timeout)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(baseUri(node) + pathAndQuery))
            .timeout(timeout)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .method(method, HttpRequest.BodyPublishers.ofString(form))
            .build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  /**
   * The first and last index of the Raft log kept in {@code node}'s data directory, from its
   * segment files' names ({@code log_FIRST-LAST}, {@code log_inprogress_FIRST}); {@code
   * {Long.MAX_VALUE, -1}} when it keeps none.
   */
  public long[] logRange(int node) throws IOException {
    long first = Long.MAX_VALUE;
    long last = -1;
    Path ratis = work.resolve("node-" + node).resolve("ratis");
    try (var files = Files.walk(ratis)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        if (!file.getParent().getFileName().toString().equals("current")) {
          continue;
        }
        if (name.matches("log_inprogress_\\d+")) {
          long start = Long.parseLong(name.substring("log_inprogress_".length()));
          first = Math.min(first, start);
          last = Math.max(last, start);
        } else if (name.matches("log_\\d+-\\d+")) {
          String[] range = name.substring(4).split("-");
          first = Math.min(first, Long.parseLong(range[0]));
          last = Math.max(last, Long.parseLong(range[1]));
        }
      }
    }
    return new long[] {first, last};
  }

  public HttpResponse<String> postForm(int node, String path, String form)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(baseUri(node) + path))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  /** Every run's output, node by node, into {@code node-N.log} in the work directory. */
  private void saveOutput() {
    StringBuilder[] logs = new StringBuilder[ports.length];
    for (Map.Entry<Integer, ServerProcess> run : everyRun) {
      int node = run.getKey();
      if (logs[node] == null) {
        logs[node] = new StringBuilder();
      }
      logs[node].append("---- run pid ").append(run.getValue().pid()).append('\n');
      run.getValue().output().forEach(line -> logs[node].append(line).append('\n'));
    }
    for (int node = 0; node < ports.length; node++) {
      if (logs[node] != null) {
        try {
          Files.writeString(work.resolve("node-" + node + ".log"), logs[node]);
        } catch (IOException ignored) {
          // Only a diagnostic.
        }
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (ServerProcess node : nodes) {
      if (node != null) {
        if (node.isAlive()) {
          try {
            node.resume(); // a paused process cannot run its shutdown hook
          } catch (IOException ignored) {
            // Gone meanwhile.
          }
        }
        node.close();
      }
    }
    saveOutput();
  }

  private void launch(int node) throws IOException {
    List<String> arguments = new ArrayList<>();
    arguments.add("--bind");
    arguments.add(host(node));
    arguments.add("--cluster-conf");
    arguments.add(clusterConfs[node].toString());
    arguments.add("--election-timeout-ms");
    arguments.add(Integer.toString(ELECTION_TIMEOUT_MILLIS));
    arguments.add("--owner-timeout-ms");
    arguments.add(Integer.toString(OWNER_TIMEOUT_MILLIS));
    arguments.add("--snapshot-every-entries");
    arguments.add(Integer.toString(SNAPSHOT_EVERY_ENTRIES));
    arguments.addAll(extraArguments);
    nodes[node] =
        ServerProcess.launch(
            ports[node], work.resolve("node-" + node), arguments, environment, JVM_OPTIONS);
    everyRun.add(Map.entry(node, nodes[node]));
  }

  private void awaitReady(int node) throws InterruptedException {
    nodes[node].awaitOutput("sluice server ready", 120);
  }
}
