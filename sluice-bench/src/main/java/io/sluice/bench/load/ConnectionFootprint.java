package io.sluice.bench.load;

import io.sluice.bench.load.lean.LeanConnection;
import io.sluice.bench.load.lean.LeanTransport;
import io.sluice.bench.load.lean.PushHandler;
import io.sluice.bench.load.lean.Requests;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What client connections cost the nodes of a cluster, step by step: opens {@code connections} gRPC
 * connections to one node (the real Nacos handshake, lean client; each sends the official client's
 * 5 s health check from the moment it is open), then has each subscribe to {@code subscriptions}
 * services, then register {@code registrations} ephemeral instances (one per service, 100 B of
 * metadata, as an application registering itself), which the node pushes to the subscribers of
 * those services. Before and after each step it measures every node's live heap (a full GC first:
 * {@code jcmd PID GC.class_histogram}) and RSS, and prints the cost of a bare connection and of a
 * subscription on the node holding them (services nobody registered yet are created by their first
 * subscription, so that figure includes a share of an empty service), and of an instance on the
 * node that owns it and on each node that holds a replicated copy (it waits until every node lists
 * them all).
 *
 * <pre>
 * taskset -c 0 bin/sluice server --port 28848 --data-dir /tmp/cf &amp;  PID=$!
 * taskset -c 1 java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.load.ConnectionFootprint \
 *     127.0.0.1:28848 $PID 10000 1 5 1000
 * </pre>
 *
 * Arguments: the node's address (HTTP port; gRPC is +1000), its PID, connections, registrations per
 * connection, subscriptions per connection, services (registrations and subscriptions are spread
 * over them), then, in a cluster, every other node as {@code host:port=PID}. Needs {@code jcmd} on
 * the PATH, and file descriptors for the connections ({@code ulimit -n}) in this process and the
 * node.
 *
 * <p>A step whose calls fail, or during which the node closes any connection, invalidates the
 * figures: the run then says how many connections the node closed, counts the failed calls by
 * reason, and exits with status 1.
 */
public final class ConnectionFootprint {
  private static final String METADATA_VALUE = "x".repeat(88);
  private static final Pattern INSTANCE_COUNT = Pattern.compile("\"instanceCount\":(\\d+)");

  private ConnectionFootprint() {}

  public static void main(String[] args) {
    // The lean transport's threads would keep a failed run alive: end the process either way.
    int status;
    try {
      status = run(args);
    } catch (Exception e) {
      e.printStackTrace();
      status = 1;
    }
    System.exit(status);
  }

  /** One node of the cluster: where to ask it for its instance count, and its process. */
  private record Node(String name, String httpAddress, long pid, ProcessProbe probe) {
    static Node of(String name, String httpAddress, long pid) {
      return new Node(name, httpAddress, pid, new ProcessProbe(pid));
    }
  }

  private static int run(String[] args) throws Exception {
    if (args.length < 6) {
      System.err.println(
          "usage: ConnectionFootprint host:port server-pid connections registrations-per-connection"
              + " subscriptions-per-connection services [other-node-host:port=pid ...]");
      return 2;
    }
    String[] hostPort = args[0].split(":");
    int connections = Integer.parseInt(args[2]);
    int registrations = Integer.parseInt(args[3]);
    int subscriptions = Integer.parseInt(args[4]);
    int services = Integer.parseInt(args[5]);
    if (connections < 1 || registrations < 0 || subscriptions < 0 || services < 1) {
      throw new IllegalArgumentException(
          "counts must be positive (registrations, subscriptions 0+)");
    }
    if (registrations > services || subscriptions > services) {
      throw new IllegalArgumentException("a connection registers and subscribes once per service");
    }
    List<Node> nodes = new ArrayList<>();
    nodes.add(Node.of("holder " + args[0], args[0], Long.parseLong(args[1])));
    for (int i = 6; i < args.length; i++) {
      String[] addressPid = args[i].split("=");
      nodes.add(Node.of("replica " + addressPid[0], addressPid[0], Long.parseLong(addressPid[1])));
    }
    int grpcPort = Integer.parseInt(hostPort[1]) + 1000;
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    Footprint[] idle = Footprint.of(nodes);
    AtomicLong pushes = new AtomicLong();
    PushHandler countPushes = (connection, push, nanos) -> pushes.incrementAndGet();
    Failures failures = new Failures();
    ScheduledExecutorService keepAlive = Executors.newSingleThreadScheduledExecutor();
    try (LeanTransport transport = new LeanTransport(hostPort[0], grpcPort, 2, 30_000)) {
      // Each connection says it is alive every 5 s from the moment it is open, as the official
      // client does; a connection left silent for 20 s is probed by the server, and one whose
      // answer comes late (a loaded machine) is closed.
      Queue<LeanConnection> alive = new ConcurrentLinkedQueue<>();
      keepAlive.scheduleWithFixedDelay(
          () -> {
            for (LeanConnection connection : alive) {
              connection
                  .call("HealthCheckRequest", Requests.healthCheck(connection.nextRequestId()))
                  .whenComplete(failures.note("health check"));
            }
          },
          5,
          5,
          TimeUnit.SECONDS);
      List<LeanConnection> open = new ArrayList<>(connections);
      // Under the server's cap on handshakes in progress from one address.
      Semaphore handshakes = new Semaphore(64);
      List<CompletableFuture<LeanConnection>> opening = new ArrayList<>(connections);
      for (int c = 0; c < connections; c++) {
        handshakes.acquire();
        CompletableFuture<LeanConnection> connecting =
            transport.connect(LeanTransport.namingLabels(), countPushes);
        connecting.whenComplete(
            (connection, failure) -> {
              handshakes.release();
              if (connection != null) {
                alive.add(connection);
              }
            });
        opening.add(connecting);
      }
      for (CompletableFuture<LeanConnection> connecting : opening) {
        open.add(connecting.get(2, TimeUnit.MINUTES));
      }
      if (!failures.check("connecting", open)) {
        return 1;
      }
      settle();
      Footprint[] bare = Footprint.of(nodes);
      System.out.printf(
          Locale.ROOT,
          "%d bare connections: %s live heap %.1f -> %.1f MiB, RSS %d -> %d MiB: %.0f B of live"
              + " heap (%.0f B of RSS) per connection%n",
          connections,
          nodes.get(0).name(),
          idle[0].liveHeapBytes / 1048576.0,
          bare[0].liveHeapBytes / 1048576.0,
          idle[0].rssBytes >> 20,
          bare[0].rssBytes >> 20,
          (bare[0].liveHeapBytes - idle[0].liveHeapBytes) / (double) connections,
          (bare[0].rssBytes - idle[0].rssBytes) / (double) connections);

      // Subscriptions first, so that the registrations after them are pushed to the subscribers
      // (an application fleet starting up), the heaviest step for the node holding them.
      Footprint[] subscribed = bare;
      long totalSubscriptions = (long) connections * subscriptions;
      if (subscriptions > 0) {
        callEach(
            open,
            subscriptions,
            failures.note("subscription"),
            (connection, c, s) ->
                connection.call(
                    "SubscribeServiceRequest",
                    Requests.subscribe(
                        connection.nextRequestId(),
                        "public",
                        "DEFAULT_GROUP",
                        "cf-svc-" + (c * 31 + s * 104_729 + 1) % services,
                        true)));
        if (!failures.check("subscribing", open)) {
          return 1;
        }
        awaitQuietPushes(pushes);
        settle();
        subscribed = Footprint.of(nodes);
        for (int n = 0; n < nodes.size(); n++) {
          System.out.printf(
              Locale.ROOT,
              "%d subscriptions (%d per connection, over %d services): %s live heap %.1f -> %.1f"
                  + " MiB: %.0f B per subscription%n",
              totalSubscriptions,
              subscriptions,
              services,
              nodes.get(n).name(),
              bare[n].liveHeapBytes / 1048576.0,
              subscribed[n].liveHeapBytes / 1048576.0,
              (subscribed[n].liveHeapBytes - bare[n].liveHeapBytes) / (double) totalSubscriptions);
        }
      }

      Footprint[] registered = subscribed;
      long instances = (long) connections * registrations;
      if (registrations > 0) {
        long pushesBefore = pushes.get();
        callEach(
            open,
            registrations,
            failures.note("registration"),
            (connection, c, r) ->
                connection.call(
                    "InstanceRequest",
                    Requests.instance(
                        connection.nextRequestId(),
                        "registerInstance",
                        "public",
                        "DEFAULT_GROUP",
                        "cf-svc-" + (c + r * 7919) % services,
                        "10." + (c >> 16 & 0xFF) + "." + (c >> 8 & 0xFF) + "." + (c & 0xFF),
                        8080,
                        Map.of("version", "1.0.0", "pad", METADATA_VALUE))));
        if (!failures.check("registering", open)) {
          return 1;
        }
        for (Node node : nodes) {
          awaitInstances(http, node, instances);
        }
        awaitQuietPushes(pushes);
        if (!failures.check("pushing the registrations to the subscribers", open)) {
          return 1;
        }
        settle();
        registered = Footprint.of(nodes);
        for (int n = 0; n < nodes.size(); n++) {
          System.out.printf(
              Locale.ROOT,
              "%d instances (%d per connection, over %d services): %s (%s) live heap %.1f -> %.1f"
                  + " MiB: %.0f B per instance%n",
              instances,
              registrations,
              services,
              nodes.get(n).name(),
              n == 0 ? "owner" : "replicated copy",
              subscribed[n].liveHeapBytes / 1048576.0,
              registered[n].liveHeapBytes / 1048576.0,
              (registered[n].liveHeapBytes - subscribed[n].liveHeapBytes) / (double) instances);
        }
        System.out.printf(
            Locale.ROOT, "pushes received while registering: %d%n", pushes.get() - pushesBefore);
      }
      System.out.printf(
          Locale.ROOT,
          "%s RSS %d MiB idle, %d bare, %d subscribed, %d registered%n",
          nodes.get(0).name(),
          idle[0].rssBytes >> 20,
          bare[0].rssBytes >> 20,
          subscribed[0].rssBytes >> 20,
          registered[0].rssBytes >> 20);
      if (!failures.check("the last measurement", open)) {
        return 1;
      }
      keepAlive.shutdownNow();
      for (LeanConnection connection : open) {
        connection.close();
      }
    } finally {
      keepAlive.shutdownNow();
    }
    return 0;
  }

  /** One call of a step: connection number {@code c}'s {@code k}-th. */
  private interface StepCall {
    CompletableFuture<?> call(LeanConnection connection, int c, int k);
  }

  /** Makes {@code perConnection} calls on every connection, at most 1,000 in flight. */
  private static void callEach(
      List<LeanConnection> open,
      int perConnection,
      BiConsumer<Object, Throwable> onDone,
      StepCall step)
      throws Exception {
    Semaphore inFlight = new Semaphore(1_000);
    List<CompletableFuture<?>> calls = new ArrayList<>(open.size() * perConnection);
    for (int c = 0; c < open.size(); c++) {
      for (int k = 0; k < perConnection; k++) {
        inFlight.acquire();
        CompletableFuture<?> call = step.call(open.get(c), c, k);
        call.whenComplete(
            (response, failure) -> {
              inFlight.release();
              onDone.accept(response, failure);
            });
        calls.add(call);
      }
    }
    // Every call ends (answered, refused or timed out); failures are counted, not thrown.
    CompletableFuture.allOf(
            calls.stream()
                .map(call -> call.handle((response, failure) -> null))
                .toArray(CompletableFuture[]::new))
        .get(10, TimeUnit.MINUTES);
  }

  /** Calls that failed and why, counted by reason (the first one of each kept). */
  private static final class Failures {
    private final Map<String, AtomicLong> byReason = new ConcurrentHashMap<>();

    BiConsumer<Object, Throwable> note(String what) {
      return (response, failure) -> {
        if (failure != null) {
          Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
          // Reasons differ only in their numbers (a deadline's nanoseconds): count them as one.
          String message = String.valueOf(cause.getMessage()).replaceAll("[0-9][0-9.]*", "N");
          String reason = what + ": " + message.substring(0, Math.min(message.length(), 80));
          byReason.computeIfAbsent(reason, r -> new AtomicLong()).incrementAndGet();
        }
      };
    }

    /**
     * True when no call has failed and no connection was closed by the server; otherwise prints
     * what went wrong.
     */
    boolean check(String step, List<LeanConnection> open) {
      long closed = open.stream().filter(LeanConnection::isClosed).count();
      if (byReason.isEmpty() && closed == 0) {
        return true;
      }
      System.out.printf(
          Locale.ROOT,
          "FAILED while %s (1-min load %s): %d of %d connections closed by the server; failed"
              + " calls by reason: %s%n",
          step,
          loadAverage(),
          closed,
          open.size(),
          byReason);
      return false;
    }
  }

  private static void awaitInstances(HttpClient http, Node node, long expected) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    long count = -1;
    while (System.nanoTime() < deadline) {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(
                      URI.create("http://" + node.httpAddress() + "/nacos/v1/ns/operator/metrics"))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      Matcher matcher = INSTANCE_COUNT.matcher(response.body());
      count = matcher.find() ? Long.parseLong(matcher.group(1)) : -1;
      if (count >= expected) {
        return;
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException(
        node.name() + " lists " + count + " instances after 5 minutes, not " + expected);
  }

  /** Waits until the pushes the step caused have all arrived. */
  private static void awaitQuietPushes(AtomicLong pushes) throws InterruptedException {
    long before;
    do {
      before = pushes.get();
      Thread.sleep(2_000);
    } while (pushes.get() != before);
  }

  private static void settle() throws InterruptedException {
    Thread.sleep(3_000);
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (IOException e) {
      return "unknown";
    }
  }

  /** A node's live heap (after a full GC) and RSS at one moment. */
  private record Footprint(long liveHeapBytes, long rssBytes) {
    static Footprint[] of(List<Node> nodes) throws Exception {
      Footprint[] footprints = new Footprint[nodes.size()];
      for (int n = 0; n < nodes.size(); n++) {
        Node node = nodes.get(n);
        footprints[n] = new Footprint(liveHeap(node.pid()), node.probe().sample().rssBytes());
      }
      return footprints;
    }

    /** {@code jcmd PID GC.class_histogram}'s total: a full GC, then every live object's bytes. */
    private static long liveHeap(long pid) throws Exception {
      Process jcmd =
          new ProcessBuilder("jcmd", Long.toString(pid), "GC.class_histogram")
              .redirectErrorStream(true)
              .start();
      long total = -1;
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(jcmd.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = out.readLine()) != null; ) {
          String[] fields = line.trim().split("\\s+");
          if (fields.length >= 3 && fields[0].equals("Total")) {
            total = Long.parseLong(fields[2]);
          }
        }
      }
      if (jcmd.waitFor() != 0 || total < 0) {
        throw new IllegalStateException("jcmd GC.class_histogram " + pid + " gave no total");
      }
      return total;
    }
  }
}
