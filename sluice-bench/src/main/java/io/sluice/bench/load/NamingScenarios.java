package io.sluice.bench.load;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The naming scenarios of the MSE-vs-Nacos report: registering providers that carry {@code
 * metadataBytes} of metadata, querying services, and pushing changes to subscribers while providers
 * register and deregister at random (services : providers : subscribers = 1 : 3 : 3 by default).
 */
final class NamingScenarios {
  private static final int PROVIDER_BASE_PORT = 7000;

  private final Settings settings;
  private final NamingClient client;
  private final String clientName;
  private final ProcessProbe server;
  private final Failures failures;
  private final Map<String, String> metadata;

  NamingScenarios(
      Settings settings,
      NamingClient client,
      String clientName,
      ProcessProbe server,
      Failures failures) {
    this.settings = settings;
    this.client = client;
    this.clientName = clientName;
    this.server = server;
    this.failures = failures;
    this.metadata = metadata(settings.metadataBytes());
  }

  /** One entry whose key and value together are {@code bytes} characters. */
  static Map<String, String> metadata(int bytes) {
    String key = "payload";
    return Map.of(key, "m".repeat(Math.max(0, bytes - key.length())));
  }

  static String service(int i) {
    return String.format("bench-service-%05d", i);
  }

  /** {@code group@@name} or {@code name} to {@code name}. */
  static String ungrouped(String serviceName) {
    int at = serviceName.lastIndexOf("@@");
    return at < 0 ? serviceName : serviceName.substring(at + 2);
  }

  static String ip(int a, int i) {
    return "10." + a + "." + ((i >> 8) & 255) + "." + (i & 255);
  }

  /** Registrations over {@code services} services, from the multiplexed connections. */
  LoadLoop.Operation register() {
    int services = settings.services();
    return seq -> {
      int s = (int) (seq % services);
      int instance = (int) ((seq / services) % 65_536);
      return client.register(seq, service(s), ip(1, instance), 8080, metadata);
    };
  }

  /**
   * Registers {@code providersPerService} instances in each of {@code services} services, each
   * provider on its own connection through {@code seeder}; closing the result removes them.
   */
  AutoCloseable seedServices(NamingClient seeder) throws Exception {
    List<NamingClient.Provider> providers = new ArrayList<>();
    try {
      for (int p = 0; p < settings.providersPerService(); p++) {
        NamingClient.Provider provider = seeder.provider();
        providers.add(provider);
        List<CompletableFuture<?>> registered = new ArrayList<>();
        for (int s = 0; s < settings.services(); s++) {
          registered.add(provider.register(service(s), ip(2, s), 9000 + p, metadata));
          if (registered.size() == 64) {
            CompletableFuture.allOf(registered.toArray(CompletableFuture[]::new)).join();
            registered.clear();
          }
        }
        CompletableFuture.allOf(registered.toArray(CompletableFuture[]::new)).join();
      }
    } catch (Exception | Error e) {
      providers.forEach(NamingClient.Provider::close);
      throw e;
    }
    return () -> providers.forEach(NamingClient.Provider::close);
  }

  LoadLoop.Operation query() {
    int services = settings.services();
    return seq -> client.query(service(ThreadLocalRandom.current().nextInt(services)));
  }

  ScenarioResult run(String scenario, LoadLoop.Shape shape, LoadLoop.Operation operation)
      throws InterruptedException {
    return Scenarios.measure(settings, server, failures, scenario, clientName, shape, operation)
        .put("services", settings.services())
        .put("metadataBytes", settings.metadataBytes());
  }

  /** What one service looks like now: which providers are registered, and the last change. */
  private static final class ServiceState {
    int mask; // guarded by this
    volatile long changeSeq;
    volatile long changedNanos;
    volatile int expectedMask;
  }

  /**
   * {@code pushServices} services, each with {@code providersPerService} providers and {@code
   * subscribersPerService} subscribers. Per connection (the default), every provider and subscriber
   * has a connection of its own; shared ({@code pushShared}), there are {@code providersPerService}
   * provider applications that each register one instance in every service and {@code
   * subscribersPerService} subscriber applications that each subscribe to every service, one
   * connection each: the same 1 : 3 : 3 ratio of instances and subscriptions, and the same pushes
   * per change, from a handful of clients, so that the official client can take part with a
   * thousand services. A churner picks the services round-robin at {@code churnRate} per second and
   * flips one random provider of it (register if absent, deregister if present). A subscriber's
   * latency is from the change being sent to the first push whose instance list shows the state
   * after it; pushes of an intermediate state count as pushes but not as deliveries.
   */
  ScenarioResult push() throws Exception {
    int services = settings.pushServices();
    int providersPer = settings.providersPerService();
    int subscribersPer = settings.subscribersPerService();
    boolean shared = settings.pushShared();
    if (providersPer > 31) {
      throw new IllegalArgumentException("at most 31 providers per service in the push scenario");
    }
    ServiceState[] states = new ServiceState[services];
    Map<String, Integer> indexOf = new java.util.HashMap<>();
    List<String> allServices = new ArrayList<>(services);
    for (int s = 0; s < services; s++) {
      states[s] = new ServiceState();
      indexOf.put(service(s), s);
      allServices.add(service(s));
    }
    LatencyStats delivered = new LatencyStats();
    LatencyStats changes = new LatencyStats();
    List<NamingClient.Provider> providers = new ArrayList<>();
    List<AutoCloseable> subscribers = new ArrayList<>();
    try {
      if (shared) {
        for (int p = 0; p < providersPer; p++) {
          providers.add(client.provider());
        }
      }
      List<CompletableFuture<?>> registered = new ArrayList<>();
      for (int s = 0; s < services; s++) {
        for (int p = 0; p < providersPer; p++) {
          NamingClient.Provider provider;
          if (shared) {
            provider = providers.get(p);
          } else {
            provider = client.provider();
            providers.add(provider);
          }
          registered.add(provider.register(service(s), ip(3, s), PROVIDER_BASE_PORT + p, metadata));
          if (registered.size() == 64) {
            CompletableFuture.allOf(registered.toArray(CompletableFuture[]::new)).join();
            registered.clear();
          }
        }
        states[s].mask = (1 << providersPer) - 1;
        states[s].expectedMask = states[s].mask;
      }
      CompletableFuture.allOf(registered.toArray(CompletableFuture[]::new)).join();

      List<List<String>> subscriptions = new ArrayList<>();
      if (shared) {
        for (int q = 0; q < subscribersPer; q++) {
          subscriptions.add(allServices);
        }
      } else {
        for (String service : allServices) {
          for (int q = 0; q < subscribersPer; q++) {
            subscriptions.add(List.of(service));
          }
        }
      }
      for (List<String> subscribed : subscriptions) {
        long[] seen = new long[services];
        subscribers.add(
            client.subscribe(
                subscribed,
                (name, ports, bytes, nanos) -> {
                  delivered.event(bytes);
                  Integer index = indexOf.get(ungrouped(name));
                  if (index == null) {
                    return;
                  }
                  ServiceState state = states[index];
                  int mask = 0;
                  for (int port : ports) {
                    int bit = port - PROVIDER_BASE_PORT;
                    if (bit >= 0 && bit < 31) {
                      mask |= 1 << bit;
                    }
                  }
                  synchronized (seen) {
                    long changeSeq = state.changeSeq;
                    if (mask == state.expectedMask && changeSeq > seen[index]) {
                      seen[index] = changeSeq;
                      delivered.record(nanos - state.changedNanos);
                    }
                  }
                }));
      }

      LoadLoop.Operation churn =
          seq -> {
            int s = (int) (seq % services);
            int p = ThreadLocalRandom.current().nextInt(providersPer);
            ServiceState state = states[s];
            boolean register;
            synchronized (state) {
              state.mask ^= 1 << p;
              register = (state.mask & (1 << p)) != 0;
              state.expectedMask = state.mask;
              state.changedNanos = System.nanoTime();
              state.changeSeq = state.changeSeq + 1;
            }
            NamingClient.Provider provider = providers.get(shared ? p : s * providersPer + p);
            return register
                ? provider.register(service(s), ip(3, s), PROVIDER_BASE_PORT + p, metadata)
                : provider.deregister(service(s), ip(3, s), PROVIDER_BASE_PORT + p);
          };
      Map<String, LatencyStats> stats = new LinkedHashMap<>();
      stats.put("push", delivered);
      stats.put("change", changes);
      Measurement measurement = new Measurement(server, stats);
      Measurement.Window window =
          LoadLoop.run(
              new LoadLoop.Open(settings.churnRate(), settings.maxInFlight()),
              churn,
              changes,
              measurement,
              settings.warmup(),
              settings.duration(),
              failures);
      LatencyStats.Snapshot pushes = window.main();
      double cpu = window.serverCpuSeconds();
      long changeCount = window.stats().get("change").count();
      return ScenarioResult.of(
              "naming-push",
              clientName,
              services
                  + ":"
                  + providersPer * services
                  + ":"
                  + subscribersPer * services
                  + (shared ? " shared" : ""),
              window)
          .put("services", services)
          .put("providers", providersPer * services)
          .put("subscribers", subscribersPer * services)
          .put("pushConnections", providers.size() + subscriptions.size())
          .put(
              "changesPerSec",
              ScenarioResult.round(window.stats().get("change").count() / window.seconds(), 1))
          .put("pushesPerSec", ScenarioResult.round(pushes.events() / window.seconds(), 1))
          .put(
              "pushesPerChange",
              changeCount == 0
                  ? null
                  : ScenarioResult.round((double) pushes.events() / changeCount, 2))
          .put("pushedBytesPerSec", ScenarioResult.round(pushes.bytes() / window.seconds(), 0))
          .put(
              "pushesPerServerCpuSec",
              cpu > 0 ? ScenarioResult.round(pushes.events() / cpu, 0) : null)
          .put(
              "pushedBytesPerServerCpuSec",
              cpu > 0 && pushes.bytes() > 0 ? ScenarioResult.round(pushes.bytes() / cpu, 0) : null);
    } finally {
      for (AutoCloseable subscriber : subscribers) {
        subscriber.close();
      }
      providers.forEach(NamingClient.Provider::close);
    }
  }
}
