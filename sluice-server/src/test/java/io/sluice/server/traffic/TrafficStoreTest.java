package io.sluice.server.traffic;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.testing.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TrafficStoreTest {
  private final ManualClock clock = new ManualClock();
  private final TrafficStore store = new TrafficStore(clock);

  private static ResourceSecond second(String name, int pass, int block, int avgRt, int p99) {
    return new ResourceSecond(name, pass, block, 0, avgRt, avgRt, p99, 1);
  }

  /** A report of the second that just ended on the server's clock, as an agent sends it. */
  private TrafficReport report(String app, String instance, String lane, ResourceSecond... rs) {
    long now = clock.currentTimeMillis();
    long start = Math.floorDiv(now, 1000) * 1000 - 1000;
    return new TrafficReport(
        app,
        instance,
        lane,
        List.of(new TrafficReport.SeenResource("GET /idle", "Spring MVC route")),
        List.of(new TrafficReport.Second(start, List.of(rs))),
        0,
        now);
  }

  @Test
  void sumsTheLastSecondOfAResourceOverItsInstances() {
    store.accept(report("orders", "1@a", null, second("GET /orders", 10, 2, 1_000, 5_000)));
    store.accept(report("orders", "2@b", "gray", second("GET /orders", 30, 0, 3_000, 9_000)));

    List<TrafficStore.ResourceView> resources = store.resources("orders");
    assertThat(resources)
        .extracting(TrafficStore.ResourceView::name)
        .containsExactly("GET /idle", "GET /orders");
    TrafficStore.Point orders = resources.get(1).lastSecond();
    assertThat(orders.pass()).isEqualTo(40);
    assertThat(orders.block()).isEqualTo(2);
    assertThat(orders.concurrency()).isEqualTo(2);
    // The mean weighted by admitted calls, the highest instance's p99.
    assertThat(orders.avgRtMicros()).isEqualTo(2_500);
    assertThat(orders.p99RtMicros()).isEqualTo(9_000);
    assertThat(resources.get(0).lastSecond()).isNull();
    assertThat(store.apps())
        .singleElement()
        .satisfies(
            app ->
                assertThat(app.instances())
                    .extracting(TrafficStore.InstanceView::lane)
                    .containsExactly(null, "gray"));
  }

  @Test
  void twoNodesSharesAtOneSecondAddUpToWhatOneNodeHoldingBothWouldShow() {
    // Three instances on one node, and the same three split over two nodes (a cluster, where each
    // agent reports to one member): the merged sums must be the single node's.
    TrafficStore first = new TrafficStore(clock);
    TrafficStore second = new TrafficStore(clock);
    TrafficReport a = report("orders", "1@a", null, second("GET /orders", 10, 2, 1_000, 5_000));
    TrafficReport b = report("orders", "2@b", null, second("GET /orders", 30, 0, 3_000, 9_000));
    TrafficReport c = report("orders", "3@c", null, second("GET /orders", 7, 1, 20_000, 30_000));
    for (TrafficReport r : List.of(a, b, c)) {
      store.accept(r);
    }
    first.accept(a);
    second.accept(b);
    second.accept(c);

    List<TrafficStore.InstanceView> instances = new ArrayList<>();
    instances.addAll(first.app("orders").instances());
    instances.addAll(second.app("orders").instances());
    long at = store.settledSecond(instances);
    TrafficStore.Point whole = store.resources("orders").get(1).lastSecond();
    TrafficStore.Point merged =
        first
            .resourcesAt("orders", at)
            .get(1)
            .lastSecond()
            .plus(second.resourcesAt("orders", at).get(1).lastSecond());
    assertSameSum(merged, whole);
    assertThat(merged.pass()).isEqualTo(47);
    // (10 × 1,000 + 30 × 3,000 + 7 × 20,000) / 47 = 5,106.4
    assertThat(merged.avgRtMicros()).isBetween(5_105, 5_107);

    List<TrafficStore.Point> series = store.series("orders", "GET /orders", null);
    List<TrafficStore.Point> firstShare = first.seriesUpTo("orders", "GET /orders", null, at);
    List<TrafficStore.Point> secondShare = second.seriesUpTo("orders", "GET /orders", null, at);
    assertThat(series).hasSize(1);
    assertSameSum(firstShare.get(0).plus(secondShare.get(0)), series.get(0));
  }

  /** Equal sums; the weighted mean to 1 µs (each step of a weighted mean rounds down). */
  private static void assertSameSum(TrafficStore.Point actual, TrafficStore.Point expected) {
    assertThat(actual.startMillis()).isEqualTo(expected.startMillis());
    assertThat(actual.pass()).isEqualTo(expected.pass());
    assertThat(actual.block()).isEqualTo(expected.block());
    assertThat(actual.failed()).isEqualTo(expected.failed());
    assertThat(actual.concurrency()).isEqualTo(expected.concurrency());
    assertThat(actual.weight()).isEqualTo(expected.weight());
    assertThat(actual.p50RtMicros()).isEqualTo(expected.p50RtMicros());
    assertThat(actual.p99RtMicros()).isEqualTo(expected.p99RtMicros());
    assertThat(actual.avgRtMicros())
        .isBetween(expected.avgRtMicros() - 1, expected.avgRtMicros() + 1);
  }

  @Test
  void showsTheNewestSecondEveryInstanceHasSentWhenAgentsBatchTheirSeconds() {
    long now = clock.currentTimeMillis();
    long lastSecond = Math.floorDiv(now, 1000) * 1000 - 1000;
    // Instance 1 sent up to the last second; instance 2 batches and has sent up to 3 s before.
    store.accept(batch("1@a", now, lastSecond, 10, 11, 12, 13));
    store.accept(batch("2@b", now, lastSecond - 3_000, 1, 2, 3));

    assertThat(store.resources("orders"))
        .singleElement()
        .satisfies(r -> assertThat(r.lastSecond().pass()).isEqualTo(10 + 3));
    List<TrafficStore.Point> points = store.series("orders", "GET /orders", null);
    assertThat(points).extracting(TrafficStore.Point::pass).endsWith(2, 10 + 3);
    assertThat(points.get(points.size() - 1).startMillis()).isEqualTo(lastSecond - 3_000);

    // Instance 2 stops reporting: after a while it is no longer waited for.
    clock.advance(Duration.ofSeconds(TrafficStore.SETTLE_WAIT_SECONDS + 1));
    now = clock.currentTimeMillis();
    lastSecond = Math.floorDiv(now, 1000) * 1000 - 1000;
    store.accept(batch("1@a", now, lastSecond, 20));
    assertThat(store.resources("orders"))
        .singleElement()
        .satisfies(r -> assertThat(r.lastSecond().pass()).isEqualTo(20));
  }

  /** One report of consecutive seconds ending with {@code newest}, as a batching agent sends. */
  private static TrafficReport batch(String instance, long sentAt, long newest, int... passes) {
    List<TrafficReport.Second> seconds = new ArrayList<>();
    for (int k = 0; k < passes.length; k++) {
      long start = newest - (passes.length - 1 - k) * 1000L;
      seconds.add(
          new TrafficReport.Second(start, List.of(second("GET /orders", passes[k], 0, 1, 1))));
    }
    return new TrafficReport("orders", instance, null, List.of(), seconds, 0, sentAt);
  }

  @Test
  void keepsTheLastMinuteOfEachResourceOldestFirst() {
    for (int s = 0; s < 90; s++) {
      store.accept(report("orders", "1@a", null, second("GET /orders", s, 0, 100, 100)));
      clock.advance(Duration.ofSeconds(1));
    }
    clock.advance(Duration.ofSeconds(-1)); // back to when the last report came
    List<TrafficStore.Point> points = store.series("orders", "GET /orders", null);
    assertThat(points).hasSize(TrafficStore.RETAINED_SECONDS);
    assertThat(points.get(0).pass()).isEqualTo(90 - TrafficStore.RETAINED_SECONDS);
    assertThat(points.get(points.size() - 1).pass()).isEqualTo(89);
    assertThat(store.series("orders", "GET /orders", "1@a")).isEqualTo(points);
    assertThat(store.series("orders", "GET /orders", "other")).isEmpty();
  }

  @Test
  void placesAnAgentsSecondsOnTheServersClockWhateverTheAgentsClockSays() {
    long now = clock.currentTimeMillis();
    long agentNow = now - 3_600_000; // an agent an hour behind
    long agentSecond = Math.floorDiv(agentNow, 1000) * 1000 - 1000;
    store.accept(
        new TrafficReport(
            "orders",
            "1@a",
            null,
            List.of(),
            List.of(new TrafficReport.Second(agentSecond, List.of(second("GET /x", 7, 0, 1, 1)))),
            0,
            agentNow));
    assertThat(store.resources("orders"))
        .singleElement()
        .satisfies(r -> assertThat(r.lastSecond().pass()).isEqualTo(7));
  }

  @Test
  void dropsSeriesBeyondItsBoundAndCountsThem() {
    List<ResourceSecond> many = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      many.add(second("GET /r" + i, 1, 0, 1, 1));
    }
    int instances = TrafficStore.MAX_SERIES / 2_000 + 2;
    for (int i = 0; i < instances; i++) {
      store.accept(report("app", "i" + i, null, many.toArray(ResourceSecond[]::new)));
    }
    assertThat(store.seriesCount()).isEqualTo(TrafficStore.MAX_SERIES);
    assertThat(store.refused()).isEqualTo((long) instances * 2_000 - TrafficStore.MAX_SERIES);
  }

  @Test
  void forgetsInstancesThatStoppedReportingAndFreesTheirSeries() {
    store.accept(report("orders", "1@a", null, second("GET /orders", 1, 0, 1, 1)));
    clock.advance(Duration.ofSeconds(TrafficStore.EXPIRY_SECONDS - 1));
    store.accept(report("billing", "9@z", null, second("GET /bills", 1, 0, 1, 1)));
    store.expire();
    assertThat(store.apps()).hasSize(2);

    clock.advance(Duration.ofSeconds(2));
    store.expire();
    assertThat(store.apps()).extracting(TrafficStore.AppView::app).containsExactly("billing");
    assertThat(store.seriesCount()).isEqualTo(1);
    assertThat(store.resources("orders")).isEmpty();
  }

  @Test
  void aResourceMissingFromALaterReportDoesNotShowItsValueOfAMinuteBefore() {
    store.accept(report("orders", "1@a", null, second("GET /a", 5, 0, 1, 1)));
    clock.advance(Duration.ofSeconds(TrafficStore.RETAINED_SECONDS)); // the same slot of the ring
    store.accept(report("orders", "1@a", null, second("GET /b", 7, 0, 1, 1)));

    assertThat(store.series("orders", "GET /a", null)).isEmpty();
    assertThat(store.resources("orders"))
        .filteredOn(r -> r.name().equals("GET /a"))
        .singleElement()
        .satisfies(r -> assertThat(r.lastSecond()).isNull());
    assertThat(store.series("orders", "GET /b", null))
        .singleElement()
        .satisfies(p -> assertThat(p.pass()).isEqualTo(7));
  }
}
