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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BeatMonitorTest {
  private static final ServiceKey ORDERS = ServiceKey.of("public", "DEFAULT_GROUP", "orders");

  private final ManualClock clock = new ManualClock();
  private final ServiceRegistry registry = new ServiceRegistry(clock);
  private final List<ServiceKey> changes = new CopyOnWriteArrayList<>();
  private BeatMonitor beats;

  @BeforeEach
  void setUp() {
    registry.onChange(changes::add);
    beats = new BeatMonitor(registry, clock, 3, 2);
  }

  private static Instance instance(String ip, int port, Map<String, String> metadata) {
    return InstanceValidator.instance(
        ORDERS, null, ip, port, null, null, null, true, null, metadata);
  }

  private List<Instance> hosts() {
    return registry.viewOrEmpty(ORDERS).instances();
  }

  @Test
  void marksASilentInstanceUnhealthyAfter15SecondsAndRemovesItAfter30() {
    beats.register(ORDERS, instance("10.0.0.1", 80, Map.of()));

    clock.advance(Duration.ofSeconds(15));
    beats.sweep();
    assertThat(hosts()).singleElement().satisfies(i -> assertThat(i.healthy()).isTrue());

    clock.advance(Duration.ofMillis(1));
    changes.clear();
    beats.sweep();
    assertThat(hosts()).singleElement().satisfies(i -> assertThat(i.healthy()).isFalse());
    assertThat(changes).containsExactly(ORDERS);

    clock.advance(Duration.ofSeconds(15));
    changes.clear();
    beats.sweep();
    assertThat(hosts()).isEmpty();
    assertThat(changes).containsExactly(ORDERS);
    assertThat(beats.clientCount()).isZero();
  }

  @Test
  void aBeatKeepsTheInstanceAliveAndMakesItHealthyAgain() {
    beats.register(ORDERS, instance("10.0.0.1", 80, Map.of()));
    clock.advance(Duration.ofSeconds(20));
    beats.sweep();
    assertThat(hosts().get(0).healthy()).isFalse();

    Beat beat = beats.beat(ORDERS, "10.0.0.1", 80, null);

    assertThat(beat.found()).isTrue();
    assertThat(beat.intervalMillis()).isEqualTo(5_000);
    assertThat(hosts().get(0).healthy()).isTrue();
    clock.advance(Duration.ofSeconds(25));
    beats.sweep();
    assertThat(hosts()).hasSize(1);
  }

  @Test
  void followsTheTimeoutsInTheInstancesPreservedMetadata() {
    beats.register(
        ORDERS,
        instance(
            "10.0.0.1",
            80,
            Map.of(
                Instance.HEART_BEAT_INTERVAL_KEY, "1000",
                Instance.HEART_BEAT_TIMEOUT_KEY, "3000",
                Instance.IP_DELETE_TIMEOUT_KEY, "6000")));

    assertThat(beats.beat(ORDERS, "10.0.0.1", 80, null).intervalMillis()).isEqualTo(1_000);
    clock.advance(Duration.ofMillis(3_001));
    beats.sweep();
    assertThat(hosts().get(0).healthy()).isFalse();
    clock.advance(Duration.ofMillis(3_000));
    beats.sweep();
    assertThat(hosts()).isEmpty();
  }

  @Test
  void aLightBeatOfAnUnknownInstanceIsNotFoundButABeatCarryingItRegistersIt() {
    assertThat(beats.beat(ORDERS, "10.0.0.1", 80, null).found()).isFalse();
    assertThat(hosts()).isEmpty();

    Beat beat = beats.beat(ORDERS, "10.0.0.1", 80, instance("10.0.0.1", 80, Map.of("v", "1")));

    assertThat(beat.found()).isTrue();
    assertThat(hosts())
        .singleElement()
        .satisfies(i -> assertThat(i.metadata()).containsEntry("v", "1"));
  }

  @Test
  void anExpiredInstanceAnswersNotFoundToLightBeatsSoTheClientRegistersAgain() {
    beats.register(ORDERS, instance("10.0.0.1", 80, Map.of()));
    clock.advance(Duration.ofSeconds(31));
    beats.sweep();

    assertThat(beats.beat(ORDERS, "10.0.0.1", 80, null).found()).isFalse();
  }

  @Test
  void ownsEachInstanceByItsAddressSoAnotherAddressDoesNotReplaceIt() {
    beats.register(ORDERS, instance("10.0.0.1", 80, Map.of()));
    beats.register(ORDERS, instance("10.0.0.2", 80, Map.of()));
    beats.register(ORDERS, instance("10.0.0.1", 80, Map.of("v", "2")));

    assertThat(hosts()).hasSize(2);
    assertThat(registry.publishedBy(BeatMonitor.ownerOf("10.0.0.1", 80), ORDERS))
        .singleElement()
        .satisfies(i -> assertThat(i.metadata()).containsEntry("v", "2"));

    beats.deregister(ORDERS, "10.0.0.1", 80);
    assertThat(hosts()).extracting(Instance::ip).containsExactly("10.0.0.2");
    assertThat(beats.clientCount()).isEqualTo(1);
  }

  @Test
  void refusesClientsAndServicesBeyondItsLimitsAndChangesNothing() {
    beats.register(ORDERS, instance("10.0.0.1", 80, Map.of()));
    beats.register(ORDERS, instance("10.0.0.2", 80, Map.of()));
    beats.register(ORDERS, instance("10.0.0.3", 80, Map.of()));

    assertThatThrownBy(() -> beats.register(ORDERS, instance("10.0.0.4", 80, Map.of())))
        .isInstanceOf(NamingException.class);
    ServiceKey second = ServiceKey.of("public", "DEFAULT_GROUP", "b");
    ServiceKey third = ServiceKey.of("public", "DEFAULT_GROUP", "c");
    beats.register(
        second,
        InstanceValidator.instance(
            second, null, "10.0.0.1", 80, null, null, null, true, null, null));
    assertThatThrownBy(
            () ->
                beats.register(
                    third,
                    InstanceValidator.instance(
                        third, null, "10.0.0.1", 80, null, null, null, true, null, null)))
        .isInstanceOf(NamingException.class);
    assertThat(hosts()).hasSize(3);
    assertThat(registry.exists(third)).isFalse();

    beats.deregister(ORDERS, "10.0.0.3", 80);
    beats.register(ORDERS, instance("10.0.0.4", 80, Map.of()));
    assertThat(hosts()).extracting(Instance::ip).contains("10.0.0.4");
  }

  @Test
  void aFailedRegistrationDoesNotHoldAClientSlot() {
    registry.putPersistent(
        ORDERS,
        InstanceValidator.instance(
            ORDERS, null, "10.9.9.9", 1, null, null, null, false, null, null));

    for (int i = 0; i < 5; i++) {
      String ip = "10.0.0." + i;
      assertThatThrownBy(() -> beats.register(ORDERS, instance(ip, 80, Map.of())))
          .isInstanceOf(NamingException.class);
    }
    assertThat(beats.clientCount()).isZero();
  }

  @Test
  void leavesNoInstanceOrClientBehindWhenRegistrationsBeatsAndSweepsRace() throws Exception {
    BeatMonitor monitor = new BeatMonitor(registry, clock, 1_000, 10);
    int threads = 8;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      done.add(
          pool.submit(
              () -> {
                go.await();
                for (int round = 0; round < 500; round++) {
                  // Threads share addresses pairwise, so they fight over the same clients.
                  String ip = "10.0." + (thread / 2) + "." + (round % 5);
                  monitor.register(ORDERS, instance(ip, 80, Map.of()));
                  monitor.beat(ORDERS, ip, 80, null);
                  monitor.deregister(ORDERS, ip, 80);
                }
                return null;
              }));
    }
    done.add(
        pool.submit(
            () -> {
              go.await();
              for (int sweep = 0; sweep < 500; sweep++) {
                clock.advance(Duration.ofMillis(100));
                monitor.sweep();
              }
              return null;
            }));
    go.countDown();
    for (Future<?> future : done) {
      future.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();

    assertThat(hosts()).isEmpty();
    assertThat(monitor.clientCount()).isZero();
  }
}
