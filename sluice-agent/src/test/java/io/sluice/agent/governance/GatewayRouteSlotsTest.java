package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.logging.AgentLog;
import io.sluice.agent.rules.RuleType;
import io.sluice.flow.FlowRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Gateway routes resolved by route object ({@link GatewayRouteSlots}) through the real governor:
 * always the resource of the route's id, whatever the slots hold.
 */
class GatewayRouteSlotsTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
  private final FlowGovernor governor =
      new FlowGovernor(
          FlowRegistry.builder().ticker(nanos::get).build(),
          FlowGovernor.verdicts(429, 503, 1),
          name -> {},
          AgentLog.toStream(
              new PrintStream(logBytes, true, StandardCharsets.UTF_8), AgentLog.Level.INFO));

  @AfterEach
  void clearTheThread() {
    SluiceContext.restore(null);
  }

  /** Stands for a Spring Cloud Gateway route: read through getId(), which counts its reads. */
  public static final class CountingRoute {
    private final String id;
    final AtomicInteger idReads = new AtomicInteger();

    CountingRoute(String id) {
      this.id = id;
    }

    public String getId() {
      idReads.incrementAndGet();
      return id;
    }
  }

  private GovernedResource resolve(Object route) {
    return (GovernedResource) governor.gatewayResource(route);
  }

  @Test
  void readsARoutesIdOnlyTheFirstTimeTheRouteIsSeen() {
    CountingRoute route = new CountingRoute("orders");

    for (int i = 0; i < 100; i++) {
      assertThat(resolve(route).name).isEqualTo("orders");
    }

    assertThat(route.idReads).hasValue(1);
  }

  @Test
  void resolvesEachOfMoreRoutesThanSlotsToTheResourceOfItsId() {
    int count = 3 * GatewayRouteSlots.SLOTS;
    List<CountingRoute> routes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      routes.add(new CountingRoute("route-" + i));
    }
    Map<String, GovernedResource> first = new HashMap<>();
    for (CountingRoute route : routes) {
      first.put(route.id, resolve(route));
    }

    for (int pass = 0; pass < 3; pass++) {
      for (CountingRoute route : routes) {
        GovernedResource resource = resolve(route);
        assertThat(resource.name).isEqualTo(route.id);
        assertThat(resource).isSameAs(first.get(route.id));
      }
    }
    assertThat(first.values().stream().distinct()).hasSize(count);
  }

  @Test
  void aRefreshedRouteWithTheSameIdIsGovernedAsTheSameResource() throws Exception {
    governor.apply(RuleType.FLOW, "[{\"resource\":\"orders\",\"count\":1}]");
    CountingRoute before = new CountingRoute("orders");
    Object resource = governor.gatewayResource(before);
    assertThat(governor.acquire(resource)).isPositive();

    // RefreshRoutesEvent: CachingRouteLocator builds the routes again, new objects, same ids.
    CountingRoute refreshed = new CountingRoute("orders");

    assertThat(governor.gatewayResource(refreshed)).isSameAs(resource);
    assertThat(governor.acquire(governor.gatewayResource(refreshed)))
        .as("the limit counts the refreshed route's calls with the old one's")
        .isNegative();
    assertThat(governor.gatewayResource(refreshed)).isSameAs(resource);
    assertThat(refreshed.idReads).hasValue(1);
  }

  @Test
  void routesSharingSlotsEachGetTheirOwnResource() {
    // Three routes whose identity hashes pick the same two slots: one of them cannot stay.
    List<CountingRoute> colliding = collidingRoutes(3);

    for (int pass = 0; pass < 50; pass++) {
      for (CountingRoute route : colliding) {
        assertThat(resolve(route).name).isEqualTo(route.id);
      }
    }
    GatewayRouteSlots slots = new GatewayRouteSlots();
    GovernedResource[] resources = new GovernedResource[colliding.size()];
    for (int i = 0; i < colliding.size(); i++) {
      resources[i] = resolve(colliding.get(i));
      slots.put(colliding.get(i), resources[i]);
    }
    int found = 0;
    for (int i = 0; i < colliding.size(); i++) {
      GovernedResource stored = slots.get(colliding.get(i));
      if (stored != null) {
        assertThat(stored).isSameAs(resources[i]);
        found++;
      }
    }
    assertThat(found).as("two slots for three routes").isEqualTo(2);
  }

  @Test
  void twoRoutesWhoseHashesShareASlotBothStay() {
    List<CountingRoute> colliding = collidingRoutes(2);
    for (int pass = 0; pass < 20; pass++) {
      for (CountingRoute route : colliding) {
        assertThat(resolve(route).name).isEqualTo(route.id);
      }
    }
    for (CountingRoute route : colliding) {
      assertThat(route.idReads).hasValue(1);
    }
  }

  @Test
  void aCollectedRouteLeavesNoLiveEntry() throws Exception {
    GatewayRouteSlots slots = new GatewayRouteSlots();
    GovernedResource resource =
        new GovernedResource(
            FlowRegistry.builder().build().resource("orders", io.sluice.flow.Direction.INBOUND),
            CallPath.GATEWAY_ROUTE);
    WeakReference<Object> collected = putAndForget(slots, resource);

    for (int i = 0; i < 100 && collected.get() != null; i++) {
      System.gc();
      Thread.sleep(10);
    }

    assertThat(collected.get()).as("the slots held the route").isNull();
    assertThat(slots.live()).isZero();
  }

  private static WeakReference<Object> putAndForget(
      GatewayRouteSlots slots, GovernedResource resource) {
    Object route = new CountingRoute("orders");
    slots.put(route, resource);
    assertThat(slots.get(route)).isSameAs(resource);
    assertThat(slots.live()).isEqualTo(1);
    return new WeakReference<>(route);
  }

  @Test
  void stopsGoverningNewRouteIdsPastTheBoundAndSaysSoOnce() {
    List<CountingRoute> routes = new ArrayList<>();
    for (int i = 0; i < RouteResources.DEFAULT_MAX_ROUTES; i++) {
      CountingRoute route = new CountingRoute("route-" + i);
      routes.add(route);
      assertThat(resolve(route)).isNotNull();
    }

    CountingRoute beyond = new CountingRoute("one-too-many");
    assertThat(resolve(beyond)).isNull();
    assertThat(resolve(beyond)).as("not remembered by object either").isNull();
    assertThat(resolve(new CountingRoute("route-7")).name)
        .as("a refreshed route of a known id")
        .isEqualTo("route-7");
    assertThat(resolve(routes.get(9_999)).name).isEqualTo("route-9999");
    assertThat(logBytes.toString(StandardCharsets.UTF_8))
        .containsOnlyOnce("more than 10000 routes or client targets");
  }

  @Test
  void threadsResolvingTheSameRoutesTogetherAllGetTheResourceOfTheId() throws Exception {
    int threads = 8;
    List<CountingRoute> routes = new ArrayList<>();
    for (int i = 0; i < 2 * GatewayRouteSlots.SLOTS; i++) {
      routes.add(new CountingRoute("route-" + i));
    }
    CountDownLatch start = new CountDownLatch(1);
    ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int offset = t * 37;
      Thread thread =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int pass = 0; pass < 20; pass++) {
                  for (int i = 0; i < routes.size(); i++) {
                    CountingRoute route = routes.get((i + offset) % routes.size());
                    GovernedResource resource = resolve(route);
                    if (resource == null || !resource.name.equals(route.id)) {
                      wrong.add(route.id + " -> " + resource);
                    }
                  }
                }
              });
      thread.start();
      running.add(thread);
    }
    start.countDown();
    for (Thread thread : running) {
      thread.join();
    }

    assertThat(wrong).isEmpty();
    Map<String, Object> byId = new HashMap<>();
    for (CountingRoute route : routes) {
      assertThat(byId.put(route.id, resolve(route))).isNull();
      assertThat(resolve(new CountingRoute(route.id))).isSameAs(byId.get(route.id));
    }
  }

  @Test
  void resolvingAKnownRouteAllocatesNothing() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    List<CountingRoute> routes = routesInSeparateSlots(8);
    Object[] sink = new Object[routes.size()];
    for (int i = 0; i < 200_000; i++) {
      sink[i & 7] = governor.gatewayResource(routes.get(i & 7));
    }

    long before = threads.getThreadAllocatedBytes(thread);
    for (int i = 0; i < 100_000; i++) {
      sink[i & 7] = governor.gatewayResource(routes.get(i & 7));
    }
    long allocated = threads.getThreadAllocatedBytes(thread) - before;

    assertThat(allocated).as("bytes allocated by 100,000 resolutions").isLessThan(64 * 1024);
    for (CountingRoute route : routes) {
      assertThat(route.idReads).hasValue(1);
    }
  }

  @Test
  void theGovernorWithoutSlotsStillResolvesByIdOnEveryCall() throws Exception {
    java.lang.reflect.Field bySlot = FlowGovernor.class.getDeclaredField("routesBySlot");
    bySlot.setAccessible(true);
    bySlot.setBoolean(governor, false);
    CountingRoute route = new CountingRoute("orders");

    for (int i = 0; i < 5; i++) {
      assertThat(resolve(route).name).isEqualTo("orders");
    }

    assertThat(route.idReads).as("the benchmark's switch takes effect").hasValue(5);
    assertThat(slotsOf(governor).live()).isZero();
  }

  @Test
  void aRouteWithoutAnIdIsNotGoverned() {
    assertThat(governor.gatewayResource(new Object())).isNull();
    assertThat(governor.gatewayResource(null)).isNull();
    assertThat(governor.gatewayResource(new CountingRoute(null))).isNull();
    assertThat(slotsOf(governor).live()).isZero();
  }

  /** Routes whose identity hashes all pick the same pair of slots. */
  private static List<CountingRoute> collidingRoutes(int count) {
    Map<Integer, List<CountingRoute>> byPair = new HashMap<>();
    for (int i = 0; ; i++) {
      CountingRoute route = new CountingRoute("colliding-" + i);
      int pair = (System.identityHashCode(route) & (GatewayRouteSlots.SLOTS - 1)) >>> 1;
      List<CountingRoute> same = byPair.computeIfAbsent(pair, p -> new ArrayList<>());
      same.add(route);
      if (same.size() == count) {
        return same;
      }
    }
  }

  /** Routes no two of which pick the same pair of slots. */
  private static List<CountingRoute> routesInSeparateSlots(int count) {
    List<CountingRoute> routes = new ArrayList<>();
    java.util.Set<Integer> pairs = new java.util.HashSet<>();
    for (int i = 0; routes.size() < count; i++) {
      CountingRoute route = new CountingRoute("route-" + i);
      if (pairs.add((System.identityHashCode(route) & (GatewayRouteSlots.SLOTS - 1)) >>> 1)) {
        routes.add(route);
      }
    }
    return routes;
  }

  private static GatewayRouteSlots slotsOf(FlowGovernor governor) {
    try {
      java.lang.reflect.Field slots = FlowGovernor.class.getDeclaredField("gatewayRouteSlots");
      slots.setAccessible(true);
      return (GatewayRouteSlots) slots.get(governor);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }
}
