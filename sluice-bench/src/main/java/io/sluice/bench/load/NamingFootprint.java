package io.sluice.bench.load;

import io.sluice.bench.load.lean.LeanConnection;
import io.sluice.bench.load.lean.LeanTransport;
import io.sluice.bench.load.lean.PushHandler;
import io.sluice.bench.load.lean.Requests;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The registry's memory at scale: fills a running server with {@code instances} ephemeral instances
 * (100 bytes of metadata each) over {@code services} services from {@code providers} connections,
 * adds {@code subscriptions} subscriptions from {@code subscribers} connections, waits for the
 * pushes to settle and prints the server's RSS and threads before and after.
 *
 * <pre>
 * taskset -c 0 bin/sluice server --port 28848 --data-dir /tmp/fp &amp;  PID=$!
 * taskset -c 1 java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.load.NamingFootprint \
 *     127.0.0.1:28848 $PID 100000 10000 200 10000 100
 * </pre>
 *
 * Arguments: server address (HTTP port; gRPC is +1000), server PID, instances, services, provider
 * connections, subscriptions, subscriber connections.
 */
public final class NamingFootprint {
  private static final String METADATA_VALUE = "x".repeat(88);

  private NamingFootprint() {}

  public static void main(String[] args) throws Exception {
    String[] hostPort = args[0].split(":");
    ProcessProbe server = new ProcessProbe(Long.parseLong(args[1]));
    int instances = Integer.parseInt(args[2]);
    int services = Integer.parseInt(args[3]);
    int providers = Integer.parseInt(args[4]);
    int subscriptions = Integer.parseInt(args[5]);
    int subscribers = Integer.parseInt(args[6]);
    int grpcPort = Integer.parseInt(hostPort[1]) + 1000;

    ProcessProbe.Sample idle = server.sample();
    AtomicLong pushes = new AtomicLong();
    PushHandler countPushes = (connection, push, nanos) -> pushes.incrementAndGet();
    try (LeanTransport transport = new LeanTransport(hostPort[0], grpcPort, 2, 30_000)) {
      List<LeanConnection> providerConnections = new ArrayList<>();
      for (int p = 0; p < providers; p++) {
        providerConnections.add(
            transport.connectNow(LeanTransport.namingLabels(), PushHandler.IGNORE));
      }
      long start = System.nanoTime();
      Semaphore inFlight = new Semaphore(2_000);
      List<CompletableFuture<?>> calls = new ArrayList<>(instances);
      int perService = Math.max(1, instances / services);
      for (int i = 0; i < instances; i++) {
        int service = i % services;
        int replica = i / services;
        // One instance per (connection, service), as Nacos 2.x keeps it.
        LeanConnection connection = providerConnections.get((service + replica * 37) % providers);
        Map<String, String> metadata =
            Map.of("version", "1.0.0", "zone", "z" + (replica % 3), "pad", METADATA_VALUE);
        inFlight.acquire();
        CompletableFuture<?> call =
            connection.call(
                "InstanceRequest",
                Requests.instance(
                    connection.nextRequestId(),
                    "registerInstance",
                    "public",
                    "DEFAULT_GROUP",
                    "fp-svc-" + service,
                    "10." + (service >> 8 & 0xFF) + "." + (service & 0xFF) + "." + (replica + 1),
                    8080,
                    metadata));
        call.whenComplete((r, e) -> inFlight.release());
        calls.add(call);
      }
      CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
      double registerSeconds = (System.nanoTime() - start) / 1e9;
      ProcessProbe.Sample registered = server.sample();

      List<LeanConnection> subscriberConnections = new ArrayList<>();
      for (int s = 0; s < subscribers; s++) {
        subscriberConnections.add(transport.connectNow(LeanTransport.namingLabels(), countPushes));
      }
      calls.clear();
      for (int s = 0; s < subscriptions; s++) {
        LeanConnection connection = subscriberConnections.get(s % subscribers);
        calls.add(
            connection.call(
                "SubscribeServiceRequest",
                Requests.subscribe(
                    connection.nextRequestId(),
                    "public",
                    "DEFAULT_GROUP",
                    "fp-svc-" + (s % services),
                    true)));
      }
      CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
      // Let the first pushes of every subscription arrive and the heap settle.
      long before;
      do {
        before = pushes.get();
        Thread.sleep(2_000);
      } while (pushes.get() != before);
      Thread.sleep(3_000);
      ProcessProbe.Sample subscribed = server.sample();

      System.out.printf(
          Locale.ROOT,
          "naming footprint: %d instances (%d per service, 100 B metadata) over %d services from %d"
              + " connections, registered in %.1f s (%.0f/s), server CPU %.1f s%n",
          instances,
          perService,
          services,
          providers,
          registerSeconds,
          instances / registerSeconds,
          registered.cpuSecondsSince(idle));
      System.out.printf(
          Locale.ROOT,
          "RSS idle %d MiB, with instances %d MiB, with %d subscriptions on %d connections %d MiB;"
              + " threads %d; pushes received %d%n",
          idle.rssBytes() >> 20,
          registered.rssBytes() >> 20,
          subscriptions,
          subscribers,
          subscribed.rssBytes() >> 20,
          subscribed.threads(),
          pushes.get());
      // Optionally keep everything registered, so the server can be inspected (jcmd, NMT).
      Thread.sleep(Long.getLong("hold.seconds", 0) * 1000);
      for (LeanConnection connection : subscriberConnections) {
        connection.close();
      }
      for (LeanConnection connection : providerConnections) {
        connection.close();
      }
    }
  }
}
