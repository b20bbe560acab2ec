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

  private ClusterProcesses(Path work, int[] ports) throws IOException {
    this.work = work;
    this.ports = ports;
    this.nodes = new ServerProcess[ports.length];
    this.clusterConf = work.resolve("cluster.conf");
    StringBuilder conf = new StringBuilder("# written by ClusterProcesses\n");
    for (int node = 0; node < ports.length; node++) {
      conf.append(address(node)).append('\n');
    }
    Files.writeString(clusterConf, conf.toString());
  }

  /** Starts {@code size} nodes at once and waits until every one says it is ready. */
  public static ClusterProcesses start(Path work, int size)
      throws IOException, InterruptedException {
    Set<Integer> taken = new HashSet<>();
    int[] ports = new int[size];
    for (int i = 0; i < size; i++) {
      int port;
      do {
        port = FreePorts.httpPortWithFreeGrpcPort();
      } while (taken.contains(port) || taken.contains(port - 1000) || taken.contains(port + 1000));
      taken.add(port);
      ports[i] = port;
    }
    ClusterProcesses cluster = new ClusterProcesses(work, ports);
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
  }

  public int size() {
    return ports.length;
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
    for (int i = 0; i < ports.length; i++) {
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
    arguments.add(clusterConf.toString());
    arguments.add("--election-timeout-ms");
    arguments.add(Integer.toString(ELECTION_TIMEOUT_MILLIS));
    arguments.add("--owner-timeout-ms");
    arguments.add(Integer.toString(OWNER_TIMEOUT_MILLIS));
    nodes[node] =
        ServerProcess.launch(ports[node], work.resolve("node-" + node), arguments, JVM_OPTIONS);
    everyRun.add(Map.entry(node, nodes[node]));
  }

  private void awaitReady(int node) throws InterruptedException {
    nodes[node].awaitOutput("sluice server ready", 120);
  }
}
