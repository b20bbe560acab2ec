package io.sluice.bench.load;

import io.sluice.bench.load.lean.LeanConnection;
import io.sluice.bench.load.lean.LeanTransport;
import io.sluice.bench.load.lean.PushHandler;
import io.sluice.bench.load.lean.Requests;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a client connection costs the node it is connected to: opens {@code connections} gRPC
 * connections (the real Nacos handshake, lean client), then has each register {@code registrations}
 * ephemeral instances (one per service, 100 B of metadata, as an application registering itself)
 * and subscribe to {@code subscriptions} services, and measures the server's live heap (a full GC
 * first: {@code jcmd PID GC.class_histogram}) and RSS before, with the bare connections, and with
 * their registrations and subscriptions.
 *
 * <pre>
 * taskset -c 0 bin/sluice server --port 28848 --data-dir /tmp/cf &amp;  PID=$!
 * taskset -c 1 java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.load.ConnectionFootprint \
 *     127.0.0.1:28848 $PID 10000 1 5 1000
 * </pre>
 *
 * Arguments: server address (HTTP port; gRPC is +1000), server PID, connections, registrations per
 * connection, subscriptions per connection, services (registrations and subscriptions are spread
 * over them). Needs {@code jcmd} on the PATH, and file descriptors for the connections ({@code
 * ulimit -n}) in this process and the server.
 */
public final class ConnectionFootprint {
  private static final String METADATA_VALUE = "x".repeat(88);

  private ConnectionFootprint() {}

  public static void main(String[] args) {
    // The lean transport's threads would keep a failed run alive: end the process either way.
    try {
      run(args);
    } catch (Exception e) {
      e.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  private static void run(String[] args) throws Exception {
    if (args.length != 6) {
      System.err.println(
          "usage: ConnectionFootprint host:port server-pid connections registrations-per-connection"
              + " subscriptions-per-connection services");
      System.exit(2);
    }
    String[] hostPort = args[0].split(":");
    long pid = Long.parseLong(args[1]);
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
    ProcessProbe server = new ProcessProbe(pid);
    int grpcPort = Integer.parseInt(hostPort[1]) + 1000;

    Footprint idle = Footprint.of(pid, server);
    AtomicLong pushes = new AtomicLong();
    PushHandler countPushes = (connection, push, nanos) -> pushes.incrementAndGet();
    try (LeanTransport transport = new LeanTransport(hostPort[0], grpcPort, 2, 30_000)) {
      List<LeanConnection> open = new ArrayList<>(connections);
      // Under the server's cap on handshakes in progress from one address.
      Semaphore handshakes = new Semaphore(64);
      List<CompletableFuture<LeanConnection>> opening = new ArrayList<>(connections);
      for (int c = 0; c < connections; c++) {
        handshakes.acquire();
        CompletableFuture<LeanConnection> connecting =
            transport.connect(LeanTransport.namingLabels(), countPushes);
        connecting.whenComplete((connection, failure) -> handshakes.release());
        opening.add(connecting);
      }
      for (CompletableFuture<LeanConnection> connecting : opening) {
        open.add(connecting.get(2, TimeUnit.MINUTES));
      }
      // Each connection says it is alive every 5 s, as the official client does, so the server
      // never probes them as idle (a probe a full GC delays past its answer time closes one).
      java.util.concurrent.ScheduledExecutorService keepAlive =
          java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
      keepAlive.scheduleWithFixedDelay(
          () -> {
            for (LeanConnection connection : open) {
              connection.call(
                  "HealthCheckRequest", Requests.healthCheck(connection.nextRequestId()));
            }
          },
          1,
          5,
          TimeUnit.SECONDS);
      settle();
      Footprint bare = Footprint.of(pid, server);
      System.out.printf(
          Locale.ROOT,
          "%d bare connections: server live heap %.1f -> %.1f MiB, RSS %d -> %d MiB: %.0f B of live"
              + " heap (%.0f B of RSS) per connection%n",
          connections,
          idle.liveHeapBytes / 1048576.0,
          bare.liveHeapBytes / 1048576.0,
          idle.rssBytes >> 20,
          bare.rssBytes >> 20,
          (bare.liveHeapBytes - idle.liveHeapBytes) / (double) connections,
          (bare.rssBytes - idle.rssBytes) / (double) connections);

      Semaphore inFlight = new Semaphore(1_000);
      List<CompletableFuture<?>> calls = new ArrayList<>();
      for (int c = 0; c < connections; c++) {
        LeanConnection connection = open.get(c);
        for (int r = 0; r < registrations; r++) {
          int service = (c + r * 7919) % services;
          inFlight.acquire();
          CompletableFuture<?> call =
              connection.call(
                  "InstanceRequest",
                  Requests.instance(
                      connection.nextRequestId(),
                      "registerInstance",
                      "public",
                      "DEFAULT_GROUP",
                      "cf-svc-" + service,
                      "10." + (c >> 16 & 0xFF) + "." + (c >> 8 & 0xFF) + "." + (c & 0xFF),
                      8080,
                      Map.of("version", "1.0.0", "pad", METADATA_VALUE)));
          call.whenComplete((response, failure) -> inFlight.release());
          calls.add(call);
        }
        for (int s = 0; s < subscriptions; s++) {
          int service = (c * 31 + s * 104_729 + 1) % services;
          inFlight.acquire();
          CompletableFuture<?> call =
              connection.call(
                  "SubscribeServiceRequest",
                  Requests.subscribe(
                      connection.nextRequestId(),
                      "public",
                      "DEFAULT_GROUP",
                      "cf-svc-" + service,
                      true));
          call.whenComplete((response, failure) -> inFlight.release());
          calls.add(call);
        }
      }
      CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
      long before;
      do { // the pushes that registrations caused to the subscriptions have all arrived
        before = pushes.get();
        Thread.sleep(2_000);
      } while (pushes.get() != before);
      settle();
      Footprint loaded = Footprint.of(pid, server);

      System.out.printf(
          Locale.ROOT,
          "server live heap %.1f MiB idle, %.1f MiB with %d bare connections, %.1f MiB with %d"
              + " registrations and %d subscriptions each (over %d services); RSS %d, %d, %d MiB;"
              + " pushes received %d%n",
          idle.liveHeapBytes / 1048576.0,
          bare.liveHeapBytes / 1048576.0,
          connections,
          loaded.liveHeapBytes / 1048576.0,
          registrations,
          subscriptions,
          services,
          idle.rssBytes >> 20,
          bare.rssBytes >> 20,
          loaded.rssBytes >> 20,
          pushes.get());
      System.out.printf(
          Locale.ROOT,
          "per connection: %.0f B of live heap bare (%.0f B of RSS), %.0f B with its registrations"
              + " and subscriptions (%.0f B of RSS)%n",
          (bare.liveHeapBytes - idle.liveHeapBytes) / (double) connections,
          (bare.rssBytes - idle.rssBytes) / (double) connections,
          (loaded.liveHeapBytes - idle.liveHeapBytes) / (double) connections,
          (loaded.rssBytes - idle.rssBytes) / (double) connections);
      keepAlive.shutdownNow();
      for (LeanConnection connection : open) {
        connection.close();
      }
    }
  }

  private static void settle() throws InterruptedException {
    Thread.sleep(3_000);
  }

  /** The server's live heap (after a full GC) and RSS at one moment. */
  private record Footprint(long liveHeapBytes, long rssBytes) {
    static Footprint of(long pid, ProcessProbe server) throws Exception {
      return new Footprint(liveHeap(pid), server.sample().rssBytes());
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
