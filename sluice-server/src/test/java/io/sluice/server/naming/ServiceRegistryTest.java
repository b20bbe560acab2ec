package io.sluice.server.naming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.testing.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ServiceRegistryTest {
  private final ManualClock clock = new ManualClock();
  private final ServiceRegistry registry = new ServiceRegistry(clock);

  private static ServiceKey service(String group, String name) {
    return ServiceKey.of("public", group, name);
  }

  private static Instance instance(ServiceKey service, String ip, boolean ephemeral) {
    return InstanceValidator.instance(
        service, null, ip, 80, null, null, null, ephemeral, null, Map.of());
  }

  @Test
  void listsAGroupsServicesSortedAndPagedAndForgetsThemWhenTheyEmpty() {
    for (String name : List.of("orders", "billing", "users", "catalog")) {
      ServiceKey key = service("G", name);
      registry.register("conn-1", key, instance(key, "10.0.0.1", true));
    }
    ServiceKey elsewhere = service("H", "payments");
    registry.register("conn-1", elsewhere, instance(elsewhere, "10.0.0.1", true));

    assertThat(registry.list("public", "G", 1, 3))
        .isEqualTo(new ServicePage(4, List.of("billing", "catalog", "orders")));
    assertThat(registry.list("", "G", 2, 3)).isEqualTo(new ServicePage(4, List.of("users")));
    assertThat(registry.list("public", "G", 3, 3)).isEqualTo(new ServicePage(4, List.of()));
    assertThat(registry.list("public", "H", 1, 10).names()).containsExactly("payments");
    assertThat(registry.list("other-ns", "G", 1, 10).count()).isZero();
    assertThat(registry.serviceCount()).isEqualTo(5);

    registry.deregister("conn-1", service("G", "catalog"), "10.0.0.1", 80);
    registry.removeOwner("conn-1");
    assertThat(registry.list("public", "G", 1, 10)).isEqualTo(new ServicePage(0, List.of()));
    assertThat(registry.serviceCount()).isZero();
  }

  @Test
  void listsAServiceWithMetadataUntilItsMetadataGoesEvenWithoutInstances() {
    ServiceKey created = service("G", "created");
    registry.putMeta(created, ServiceMeta.DEFAULT);
    registry.subscribe(created, subscriber());

    assertThat(registry.list("public", "G", 1, 10).names()).containsExactly("created");
    registry.clearMeta(created);
    assertThat(registry.list("public", "G", 1, 10).names()).isEmpty();
    assertThat(registry.view(created)).as("kept while subscribed").isNotNull();
  }

  @Test
  void keepsTheIndexExactWhenManyThreadsRegisterAndLeaveAtOnce() throws Exception {
    int threads = 8;
    int servicesEach = 200;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      done.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < servicesEach; i++) {
                  // Every thread touches every service: half of them stay, half leave again.
                  ServiceKey key = service("G", "svc-" + i);
                  String owner = "conn-" + thread;
                  registry.register(owner, key, instance(key, "10.0." + thread + ".1", true));
                  if (i % 2 == 1) {
                    registry.deregister(owner, key, "10.0." + thread + ".1", 80);
                  }
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<?> future : done) {
      future.get(30, TimeUnit.SECONDS);
    }
    pool.shutdown();

    ServicePage page = registry.list("public", "G", 1, 10_000);
    assertThat(page.count()).isEqualTo(servicesEach / 2);
    assertThat(page.names())
        .hasSize(servicesEach / 2)
        .allMatch(name -> name.matches("svc-\\d*[02468]"));
    assertThat(page.names()).isSorted();
  }

  @Test
  void stampsEveryChangeAboveTheLastEvenWithinOneMillisecond() {
    ServiceKey key = service("G", "orders");
    registry.register("conn-1", key, instance(key, "10.0.0.1", true));
    long first = registry.view(key).lastRefTime();
    registry.register("conn-2", key, instance(key, "10.0.0.2", true));
    long second = registry.view(key).lastRefTime();

    assertThat(first).isGreaterThanOrEqualTo(clock.currentTimeMillis());
    assertThat(second).isGreaterThan(first);
  }

  @Test
  void neverStampsAServiceWithNothingInItBelowWhatClientsSawBefore() {
    ServiceKey unknown = service("G", "never-registered");
    long empty = registry.viewOrEmpty(unknown).lastRefTime();
    assertThat(empty)
        .as("the current time, as Nacos stamps it")
        .isEqualTo(clock.currentTimeMillis());

    ServiceKey key = service("G", "orders");
    registry.register("conn-1", key, instance(key, "10.0.0.1", true));
    registry.register("conn-1", key, instance(key, "10.0.0.2", true));
    registry.register("conn-1", key, instance(key, "10.0.0.3", true));
    long lastSeen = registry.view(key).lastRefTime();
    registry.removeOwner("conn-1");
    assertThat(registry.view(key)).isNull();
    // Gone within the same millisecond as three changes: still not older than what was pushed.
    assertThat(registry.viewOrEmpty(key).lastRefTime()).isGreaterThanOrEqualTo(lastSeen);

    ServiceKey subscribedOnly = service("G", "awaited");
    registry.subscribe(subscribedOnly, subscriber());
    assertThat(registry.viewOrEmpty(subscribedOnly).lastRefTime()).isGreaterThan(lastSeen);

    clock.advance(Duration.ofSeconds(5));
    assertThat(registry.viewOrEmpty(unknown).lastRefTime()).isEqualTo(clock.currentTimeMillis());
  }

  @Test
  void takesAnOwnersInstancesAwayWithIt() {
    ServiceKey a = service("G", "a");
    ServiceKey b = service("G", "b");
    registry.register("conn-1", a, instance(a, "10.0.0.1", true));
    registry.register("conn-1", b, instance(b, "10.0.0.1", true));
    registry.register("conn-2", b, instance(b, "10.0.0.2", true));
    List<ServiceKey> changed = new CopyOnWriteArrayList<>();
    registry.onChange(changed::add);

    registry.removeOwner("conn-1");

    assertThat(registry.view(a)).isNull();
    assertThat(registry.view(b).instances()).extracting(Instance::ip).containsExactly("10.0.0.2");
    assertThat(changed).containsExactlyInAnyOrder(a, b);
  }

  @Test
  void keepsEphemeralAndPersistentInstancesInSeparateServices() {
    ServiceKey key = service("G", "db");
    registry.putPersistent(key, instance(key, "10.0.0.1", false));

    assertThatThrownBy(() -> registry.register("conn-1", key, instance(key, "10.0.0.2", true)))
        .isInstanceOf(NamingException.class)
        .hasMessageContaining("persistent");
    assertThat(registry.instanceCount(key)).isEqualTo(1);
    assertThat(registry.hasEphemeral(key)).isFalse();
  }

  private static Subscriber subscriber() {
    return new Subscriber() {
      @Override
      public Client client() {
        return new Client("10.0.0.9", 40_000, "test", "", "");
      }

      @Override
      public String clusters() {
        return "";
      }

      @Override
      public void serviceChanged(ServiceView view) {}
    };
  }
}
