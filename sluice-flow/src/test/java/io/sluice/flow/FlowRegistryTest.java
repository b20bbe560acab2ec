package io.sluice.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FlowRegistryTest {

  private static final long MS = 1_000_000L;

  private final FakeTicker ticker = new FakeTicker();
  private final List<String> breakerEvents = new CopyOnWriteArrayList<>();
  private final List<String> overflows = new CopyOnWriteArrayList<>();
  private final FlowRegistry registry =
      FlowRegistry.builder()
          .ticker(ticker)
          .sleeper(ticker)
          .breakerListener((r, rule, from, to) -> breakerEvents.add(r + ":" + from + "->" + to))
          .overflowListener((name, count) -> overflows.add(name + "#" + count))
          .build();

  private static int admitted(Resource resource, int offered) {
    return admitted(resource, offered, null, null);
  }

  private static int admitted(Resource resource, int offered, String origin, Object param) {
    int admitted = 0;
    for (int i = 0; i < offered; i++) {
      long permit = resource.tryAcquire(origin, param);
      if (Permit.isAdmitted(permit)) {
        admitted++;
        resource.release(permit);
      }
    }
    return admitted;
  }

  @Test
  void returnsTheUngovernedPermitAtOnceWhenNoRuleApplies() {
    Resource r = registry.resource("GET /free");
    long permit = r.tryAcquire("appA");
    assertThat(permit).isEqualTo(Permit.UNGOVERNED);
    assertThat(Permit.isAdmitted(permit)).isTrue();
    r.release(permit, true);
    assertThat(r.statistics()).isNull();
    assertThat(registry.resource("GET /free")).isSameAs(r);
  }

  @Test
  void answersAtTheHandleWhileNothingGovernsTheResourceAndGovernsItOnceARuleDoes() {
    Resource in = registry.resource("r", Direction.INBOUND);
    Resource out = registry.resource("r", Direction.OUTBOUND);
    assertThat(in.governed).isFalse();
    assertThat(out.governed).isFalse();
    assertThat(in.tryAcquire("appA")).isEqualTo(Permit.UNGOVERNED);

    registry.load(RuleKind.FLOW, "[{\"resource\":\"r\",\"count\":1}]");
    assertThat(in.governed).isTrue();
    assertThat(out.governed).isTrue();
    assertThat(admitted(in, 3)).isEqualTo(1);

    // A system rule governs every inbound handle, and no outbound one.
    registry.load(RuleKind.FLOW, "[]");
    registry.load(RuleKind.SYSTEM, "[{\"qps\":1000}]");
    assertThat(in.governed).isTrue();
    assertThat(out.governed).isFalse();
    assertThat(in.tryAcquire()).isNotEqualTo(Permit.UNGOVERNED);
    assertThat(out.tryAcquire()).isEqualTo(Permit.UNGOVERNED);

    registry.load(RuleKind.SYSTEM, "[]");
    assertThat(in.governed).isFalse();
    assertThat(in.tryAcquire()).isEqualTo(Permit.UNGOVERNED);
  }

  @Test
  void keepsAnOverflowedHandleOnTheSlowPathSoItFindsItsOwnResourceLater() {
    FlowRegistry small = FlowRegistry.builder().ticker(ticker).maxResources(2).build();
    small.resource("/a");
    Resource overflowed = small.resource("/b");
    assertThat(overflowed.governed).isTrue();
    small.load(RuleKind.FLOW, "[{\"resource\":\"/b\",\"count\":1}]");
    assertThat(admitted(overflowed, 3)).isEqualTo(1);
    small.load(RuleKind.FLOW, "[]");
    assertThat(overflowed.tryAcquire()).isEqualTo(Permit.UNGOVERNED);
  }

  @Test
  void blocksAboveTheQpsLimitSayingWhichRuleAndKind() {
    registry.load(RuleKind.FLOW, "[{\"resource\":\"GET /orders\",\"count\":2}]");
    Resource r = registry.resource("GET /orders", Direction.INBOUND);
    assertThat(admitted(r, 2)).isEqualTo(2);
    long blocked = r.tryAcquire();
    assertThat(Permit.isBlocked(blocked)).isTrue();
    assertThat(Permit.blockedBy(blocked)).isEqualTo(RuleKind.FLOW);
    assertThat(r.describeBlock(blocked))
        .isEqualTo("flow rule {resource=GET /orders, limitApp=default, grade=QPS, count=2.0}");
    r.release(blocked); // a no-op
    assertThatThrownBy(r::enter)
        .isInstanceOf(FlowBlockedException.class)
        .hasMessage(
            "GET /orders blocked by flow rule {resource=GET /orders, limitApp=default,"
                + " grade=QPS, count=2.0}")
        .satisfies(e -> assertThat(((BlockedException) e).kind()).isEqualTo(RuleKind.FLOW));
    ticker.advanceMillis(1001);
    try (Entry entry = r.enter()) {
      assertThat(Permit.isAdmitted(entry.permit())).isTrue();
    }
  }

  @Test
  void limitsEachNamedOriginSeparatelyAndOtherOriginsEachOnTheirOwn() {
    registry.load(
        RuleKind.FLOW,
        "[{\"resource\":\"r\",\"count\":100},"
            + "{\"resource\":\"r\",\"count\":2,\"limitApp\":\"appA,appB\"},"
            + "{\"resource\":\"r\",\"count\":1,\"limitApp\":\"other\"}]");
    Resource r = registry.resource("r");
    assertThat(admitted(r, 5, "appA", null)).isEqualTo(2);
    assertThat(admitted(r, 5, "appB", null)).isEqualTo(2);
    assertThat(admitted(r, 5, "appC", null)).isEqualTo(1);
    assertThat(admitted(r, 5, "appD", null)).isEqualTo(1);
    assertThat(admitted(r, 5, null, null)).isEqualTo(5);
    assertThat(admitted(r, 100, "", null)).isEqualTo(100 - 11);
  }

  @Test
  void appliesAChainRuleOnlyToCallsThroughItsEntrance() {
    registry.load(
        RuleKind.FLOW,
        "[{\"resource\":\"db.query\",\"count\":1,\"strategy\":2,\"refResource\":\"GET /a\"}]");
    Resource db = registry.resource("db.query");
    assertThat(Permit.isAdmitted(db.tryAcquire(null, "GET /a", null))).isTrue();
    assertThat(Permit.isBlocked(db.tryAcquire(null, "GET /a", null))).isTrue();
    assertThat(Permit.isAdmitted(db.tryAcquire(null, "GET /b", null))).isTrue();
    assertThat(Permit.isAdmitted(db.tryAcquire())).isTrue();
  }

  @Test
  void blocksARelatedResourceWhileTheResourceItDependsOnIsBusy() {
    registry.load(
        RuleKind.FLOW,
        "[{\"resource\":\"read\",\"count\":3,\"strategy\":1,\"refResource\":\"write\"}]");
    Resource read = registry.resource("read");
    Resource write = registry.resource("write");
    ticker.advanceMillis(50);
    assertThat(admitted(write, 2)).isEqualTo(2); // write has no rule of its own but is observed
    ticker.advanceMillis(100);
    assertThat(admitted(read, 2)).isEqualTo(2); // write made 2 calls in the last second: 2 + 1 <= 3
    assertThat(admitted(write, 1)).isEqualTo(1);
    ticker.advanceMillis(100);
    long blocked = read.tryAcquire(); // now 3 + 1 > 3
    assertThat(Permit.blockedBy(blocked)).isEqualTo(RuleKind.FLOW);
    assertThat(read.describeBlock(blocked)).contains("strategy=RELATE, refResource=write");
    ticker.advanceMillis(1100);
    assertThat(admitted(read, 1)).isEqualTo(1);
  }

  @Test
  void capsConcurrencyExactlyWhenManyThreadsEnterAtOnce() throws Exception {
    registry.load(RuleKind.FLOW, "[{\"resource\":\"r\",\"grade\":0,\"count\":7}]");
    Resource r = registry.resource("r");
    List<Long> held = new CopyOnWriteArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < 1000; i++) {
                    long permit = r.tryAcquire();
                    if (Permit.isAdmitted(permit)) {
                      held.add(permit);
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(held).hasSize(7);
    long blocked = r.tryAcquire();
    assertThat(Permit.blockedBy(blocked)).isEqualTo(RuleKind.FLOW);
    assertThat(r.describeBlock(blocked)).contains("grade=THREAD");
    // Released from another thread than the one that entered.
    Thread releaser = new Thread(() -> held.forEach(r::release));
    releaser.start();
    releaser.join();
    assertThat(admitted(r, 20)).isEqualTo(20);
    assertThat(r.statistics().concurrency()).isZero();
  }

  @Test
  void schedulesPacedCallsAndMakesEnterWaitForTheirTurn() {
    registry.load(
        RuleKind.FLOW,
        "[{\"resource\":\"r\",\"count\":10,\"controlBehavior\":2,\"maxQueueingTimeMs\":250}]");
    Resource r = registry.resource("r");
    long first = r.tryAcquire();
    long second = r.tryAcquire();
    long third = r.tryAcquire();
    assertThat(Permit.mustWait(first)).isFalse();
    assertThat(Permit.mustWait(second)).isTrue();
    assertThat(r.waitNanos(second)).isEqualTo(100 * MS);
    assertThat(r.waitNanos(third)).isEqualTo(200 * MS);
    assertThat(Permit.isBlocked(r.tryAcquire())).isTrue(); // would wait 300 ms > 250 ms
    assertThatThrownBy(r::enter).isInstanceOf(FlowBlockedException.class);
    ticker.advanceMillis(150);
    long before = ticker.read();
    try (Entry entry = r.enter()) {
      // Its turn was at 300 ms: enter() slept the remaining 150 ms on the injected sleeper.
      assertThat(ticker.read() - before).isEqualTo(150 * MS);
      assertThat(r.waitNanos(entry.permit())).isZero();
    }
  }

  @Test
  void pacesAWarmUpRateLimiterAtTheColdRateFirst() {
    registry.load(
        RuleKind.FLOW,
        "[{\"resource\":\"r\",\"count\":30,\"controlBehavior\":3,\"warmUpPeriodSec\":10,"
            + "\"maxQueueingTimeMs\":1000}]");
    Resource r = registry.resource("r");
    List<Long> waits = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      waits.add(r.waitNanos(r.tryAcquire()));
    }
    // Cold: 30 / 3 = 10 per second, so 100 ms apart (pacing at 30 would be 33 ms).
    assertThat(waits).containsExactly(0L, 100 * MS, 200 * MS, 300 * MS);
  }

  @Test
  void pacesBelowOneCallPerSecondWithoutDividingByZero() {
    registry.load(
        RuleKind.FLOW,
        "[{\"resource\":\"r\",\"count\":0.2,\"controlBehavior\":2,\"maxQueueingTimeMs\":0}]");
    Resource r = registry.resource("r");
    assertThat(Permit.isAdmitted(r.tryAcquire())).isTrue();
    ticker.advanceMillis(4_999);
    assertThat(Permit.isBlocked(r.tryAcquire())).isTrue();
    ticker.advanceMillis(1);
    assertThat(Permit.isAdmitted(r.tryAcquire())).isTrue();
  }

  @Test
  void startsAWarmUpRuleAtAThirdOfItsCount() {
    registry.load(
        RuleKind.FLOW,
        "[{\"resource\":\"r\",\"count\":300,\"controlBehavior\":1,\"warmUpPeriodSec\":10}]");
    Resource r = registry.resource("r");
    // 100 per second while cold; at 300 the log keeps blocks of 2 calls, so 98 to 100 pass.
    assertThat(admitted(r, 1000)).isBetween(98, 100);
  }

  @Test
  void opensABreakerOnErrorsReportsItAndClosesAfterAGoodProbe() {
    registry.load(
        RuleKind.DEGRADE,
        "[{\"resource\":\"remote\",\"grade\":2,\"count\":2,\"timeWindow\":5,"
            + "\"minRequestAmount\":3}]");
    Resource remote = registry.resource("remote");
    for (int i = 0; i < 3; i++) {
      long permit = remote.tryAcquire();
      remote.release(permit, new RuntimeException("boom"));
    }
    long blocked = remote.tryAcquire();
    assertThat(Permit.blockedBy(blocked)).isEqualTo(RuleKind.DEGRADE);
    assertThatThrownBy(remote::enter)
        .isInstanceOf(CircuitOpenException.class)
        .hasMessageContaining("grade=ERROR_COUNT");
    assertThat(registry.breakerStates("remote")).containsValue(BreakerState.OPEN);
    ticker.advanceMillis(5000);
    try (Entry probe = remote.enter()) {
      assertThat(Permit.isAdmitted(probe.permit())).isTrue();
      assertThat(Permit.blockedBy(remote.tryAcquire())).isEqualTo(RuleKind.DEGRADE);
    }
    assertThat(registry.breakerStates("remote")).containsValue(BreakerState.CLOSED);
    assertThat(breakerEvents)
        .containsExactly(
            "remote:CLOSED->OPEN", "remote:OPEN->HALF_OPEN", "remote:HALF_OPEN->CLOSED");
  }

  @Test
  void countsAFailureReportedThroughAnEntry() {
    registry.load(
        RuleKind.DEGRADE,
        "[{\"resource\":\"remote\",\"grade\":2,\"count\":0,\"timeWindow\":5,"
            + "\"minRequestAmount\":1}]");
    Resource remote = registry.resource("remote");
    try (Entry entry = remote.enter()) {
      entry.fail(new IllegalStateException());
    }
    assertThat(Permit.blockedBy(remote.tryAcquire())).isEqualTo(RuleKind.DEGRADE);
  }

  @Test
  void limitsHotParameterValuesWithExceptions() {
    registry.load(
        RuleKind.PARAM_FLOW,
        "[{\"resource\":\"getUser\",\"paramIdx\":0,\"count\":2,\"paramFlowItemList\":["
            + "{\"object\":\"vip\",\"classType\":\"java.lang.String\",\"count\":4}]}]");
    Resource r = registry.resource("getUser");
    assertThat(admitted(r, 10, null, "alice")).isEqualTo(2);
    assertThat(admitted(r, 10, null, "vip")).isEqualTo(4);
    assertThat(admitted(r, 10, null, null)).isEqualTo(10);
    long blocked = r.tryAcquire(null, "alice");
    assertThat(Permit.blockedBy(blocked)).isEqualTo(RuleKind.PARAM_FLOW);
    assertThatThrownBy(() -> r.enter(null, "alice")).isInstanceOf(ParamFlowBlockedException.class);
    assertThat(Permit.isAdmitted(r.tryAcquireArgs(null, null, new Object[] {"bob", "x"}))).isTrue();
  }

  @Test
  void readsTheArgumentARuleNamesFromAnArgumentArray() {
    registry.load(RuleKind.PARAM_FLOW, "[{\"resource\":\"r\",\"paramIdx\":-1,\"count\":1}]");
    Resource r = registry.resource("r");
    Object[] args = {"ignored", 42};
    assertThat(Permit.isAdmitted(r.tryAcquireArgs(null, null, args))).isTrue();
    assertThat(Permit.isBlocked(r.tryAcquireArgs(null, null, args))).isTrue();
    assertThat(Permit.isAdmitted(r.tryAcquireArgs(null, null, new Object[] {42, 43}))).isTrue();
  }

  @Test
  void limitsTheCallAttributeARuleNamesThroughTheCallersReader() {
    registry.load(
        RuleKind.PARAM_FLOW,
        "[{\"resource\":\"GET /orders\",\"count\":2,\"paramSource\":{\"header\":\"x-user\"}},"
            + "{\"resource\":\"GET /orders\",\"count\":1,\"paramIdx\":1}]");
    Resource r = registry.resource("GET /orders", Direction.INBOUND);
    assertThat(r.readsCallAttributes()).isTrue();
    assertThat(r.needsArguments()).isTrue();
    java.util.Map<String, String> alice = java.util.Map.of("x-user", "alice");
    CallAttributes headers =
        (call, source) -> {
          assertThat(source.kind()).isEqualTo(ParamSource.Kind.HEADER);
          return ((java.util.Map<?, ?>) call).get(source.name());
        };
    int admitted = 0;
    for (int i = 0; i < 5; i++) {
      long permit = r.tryAcquire(null, null, new Object[] {"x", i}, headers, alice);
      if (Permit.isAdmitted(permit)) {
        admitted++;
      } else {
        assertThat(Permit.blockedBy(permit)).isEqualTo(RuleKind.PARAM_FLOW);
      }
    }
    assertThat(admitted).isEqualTo(2);
    // Another user's header value has its own budget; the argument rule limits argument 1.
    Object[] sameArgument = {"x", 99};
    java.util.Map<String, String> bob = java.util.Map.of("x-user", "bob");
    assertThat(Permit.isAdmitted(r.tryAcquire(null, null, sameArgument, headers, bob))).isTrue();
    assertThat(Permit.isBlocked(r.tryAcquire(null, null, sameArgument, headers, bob))).isTrue();
    // Without a reader the attribute is absent, and an absent value is not limited.
    assertThat(Permit.isAdmitted(r.tryAcquire(null, null, new Object[] {"x", 7}, null, null)))
        .isTrue();

    registry.load(RuleKind.PARAM_FLOW, "[]");
    assertThat(r.readsCallAttributes()).isFalse();
    assertThat(r.needsArguments()).isFalse();
  }

  @Test
  void describesEachRuleOfADocumentForItsCaller() {
    RuleDocument document =
        RuleDocument.parse(
            RuleKind.FLOW,
            "[{\"resource\":\"GET /a\",\"count\":1,\"limitApp\":\"appA,appB\"},"
                + "{\"resource\":\"GET b/x\",\"count\":1,\"strategy\":2,"
                + "\"refResource\":\"GET /a\",\"controlBehavior\":2}]");
    RuleInfo first = document.rules().get(0);
    assertThat(first.resource()).isEqualTo("GET /a");
    assertThat(first.namedOrigins()).containsExactlyInAnyOrder("appA", "appB");
    assertThat(first.strategy()).isEqualTo(RuleInfo.Strategy.DIRECT);
    RuleInfo second = document.rules().get(1);
    assertThat(second.strategy()).isEqualTo(RuleInfo.Strategy.CHAIN);
    assertThat(second.refResource()).isEqualTo("GET /a");
    assertThat(second.paced()).isTrue();
    assertThat(second.namedOrigins()).isEmpty();
    RuleInfo param =
        RuleDocument.parse(
                RuleKind.PARAM_FLOW,
                "[{\"resource\":\"r\",\"count\":1,\"paramSource\":{\"query\":\"q\"}}]")
            .rules()
            .get(0);
    assertThat(param.paramIdx()).isNull();
    assertThat(param.paramSource()).isEqualTo(new ParamSource(ParamSource.Kind.QUERY, "q"));
  }

  @Test
  void protectsOnlyInboundResourcesWithSystemRules() {
    registry.load(RuleKind.SYSTEM, "[{\"qps\":3}]");
    Resource in = registry.resource("GET /a", Direction.INBOUND);
    Resource other = registry.resource("GET /b", Direction.INBOUND);
    Resource out = registry.resource("GET /a", Direction.OUTBOUND);
    assertThat(admitted(in, 2)).isEqualTo(2);
    assertThat(admitted(other, 5)).isEqualTo(1);
    long blocked = in.tryAcquire();
    assertThat(Permit.blockedBy(blocked)).isEqualTo(RuleKind.SYSTEM);
    assertThat(in.describeBlock(blocked)).contains("inbound qps 3.0");
    assertThatThrownBy(in::enter).isInstanceOf(SystemBlockedException.class);
    assertThat(out.tryAcquire()).isEqualTo(Permit.UNGOVERNED);
    assertThat(registry.inboundStatistics().total().passed()).isEqualTo(3);
  }

  @Test
  void appliesWhiteAndBlackListsToKnownOriginsOnly() {
    registry.load(
        RuleKind.AUTHORITY,
        "[{\"resource\":\"admin\",\"limitApp\":\"ops,sre\",\"strategy\":0},"
            + "{\"resource\":\"public\",\"limitApp\":\"crawler\",\"strategy\":1}]");
    Resource admin = registry.resource("admin");
    Resource open = registry.resource("public");
    assertThat(Permit.isAdmitted(admin.tryAcquire("ops"))).isTrue();
    assertThat(Permit.blockedBy(admin.tryAcquire("shop"))).isEqualTo(RuleKind.AUTHORITY);
    assertThat(Permit.isAdmitted(admin.tryAcquire(null))).isTrue();
    assertThat(Permit.blockedBy(open.tryAcquire("crawler"))).isEqualTo(RuleKind.AUTHORITY);
    assertThat(Permit.isAdmitted(open.tryAcquire("shop"))).isTrue();
    assertThatThrownBy(() -> admin.enter("shop")).isInstanceOf(AuthorityBlockedException.class);
  }

  @Test
  void keepsTheStateOfUnchangedRulesAcrossALoad() {
    registry.load(RuleKind.FLOW, "[{\"resource\":\"r\",\"count\":5}]");
    registry.load(
        RuleKind.DEGRADE,
        "[{\"resource\":\"r\",\"grade\":2,\"count\":0,\"timeWindow\":10,\"minRequestAmount\":1}]");
    Resource r = registry.resource("r");
    assertThat(admitted(r, 4)).isEqualTo(4);
    r.release(r.tryAcquire(), true); // fifth call fails: the breaker opens
    assertThat(Permit.blockedBy(r.tryAcquire())).isEqualTo(RuleKind.DEGRADE);

    // Same rules in another order and format, plus a rule for another resource.
    registry.load(
        RuleKind.FLOW,
        "[ {\"count\": 5.0, \"resource\": \"r\"}, {\"resource\":\"s\",\"count\":1} ]");
    registry.load(
        RuleKind.DEGRADE,
        "[{\"resource\":\"r\",\"grade\":2,\"count\":0,\"timeWindow\":10,\"minRequestAmount\":1},"
            + "{\"resource\":\"s\",\"grade\":2,\"count\":0,\"timeWindow\":1}]");
    assertThat(Permit.blockedBy(r.tryAcquire())).isEqualTo(RuleKind.DEGRADE);
    ticker.advanceMillis(10_000);
    try (Entry probe = r.enter()) {
      // The breaker kept its state: this is its half-open probe, and closes it on release.
      assertThat(registry.breakerStates("r")).containsValue(BreakerState.HALF_OPEN);
      assertThat(Permit.isAdmitted(probe.permit())).isTrue();
    }
    assertThat(registry.breakerStates("r")).containsValue(BreakerState.CLOSED);
    ticker.advanceMillis(100);
    assertThat(admitted(r, 10)).isEqualTo(4); // the probe used one of the 5 in this second

    // A changed rule starts fresh.
    registry.load(RuleKind.FLOW, "[{\"resource\":\"r\",\"count\":6}]");
    assertThat(admitted(r, 10)).isEqualTo(6);
  }

  @Test
  void keepsLimitsExactWhileRulesAreSwappedUnderLoad() throws Exception {
    registry.load(RuleKind.FLOW, "[{\"resource\":\"r\",\"count\":50}]");
    Resource r = registry.resource("r");
    ExecutorService pool = Executors.newFixedThreadPool(5);
    try {
      java.util.concurrent.atomic.AtomicInteger admitted =
          new java.util.concurrent.atomic.AtomicInteger();
      java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < 2000; i++) {
                    long permit = r.tryAcquire();
                    if (Permit.isAdmitted(permit)) {
                      admitted.incrementAndGet();
                      r.release(permit);
                    }
                  }
                  return null;
                }));
      }
      futures.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < 200; i++) {
                  registry.load(
                      RuleKind.FLOW,
                      "[{\"resource\":\"r\",\"count\":50},{\"resource\":\"x"
                          + i
                          + "\",\"count\":1}]");
                }
                return null;
              }));
      start.countDown();
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
      assertThat(admitted.get()).isEqualTo(50);
      assertThat(registry.rulesVersion(RuleKind.FLOW).version()).isEqualTo(201);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void rejectsAnInvalidDocumentAsAWholeAndKeepsTheLastGoodRules() {
    RulesVersion good = registry.load(RuleKind.FLOW, "[{\"resource\":\"r\",\"count\":1}]");
    assertThatThrownBy(
            () ->
                registry.load(
                    RuleKind.FLOW,
                    "[{\"resource\":\"r\",\"count\":100},{\"resource\":\"s\",\"count\":-1}]"))
        .isInstanceOf(InvalidRuleDocumentException.class)
        .hasMessageContaining("rule #2 (resource \"s\")");
    assertThatThrownBy(() -> registry.load(RuleKind.FLOW, "[{\"resource\":\"r\",\"count\":100}"))
        .isInstanceOf(InvalidRuleDocumentException.class)
        .hasMessageContaining("malformed JSON");
    assertThat(registry.rulesVersion(RuleKind.FLOW)).isEqualTo(good);
    Resource r = registry.resource("r");
    assertThat(admitted(r, 5)).isEqualTo(1);
  }

  @Test
  void versionsEachChangeAndGivesEqualContentTheSameEtag() {
    assertThat(registry.rulesVersion(RuleKind.FLOW).version()).isZero();
    RulesVersion first =
        registry.load(
            RuleKind.FLOW, "[{\"resource\":\"a\",\"count\":1},{\"resource\":\"b\",\"count\":2}]");
    assertThat(first.version()).isEqualTo(1);
    assertThat(first.ruleCount()).isEqualTo(2);
    RulesVersion same =
        registry.load(
            RuleKind.FLOW,
            "[ {\"count\":2,\"resource\":\"b\"}, {\"count\":1.0,\"resource\":\"a\"} ]");
    assertThat(same).isEqualTo(first);
    RulesVersion changed = registry.load(RuleKind.FLOW, "[{\"resource\":\"a\",\"count\":3}]");
    assertThat(changed.version()).isEqualTo(2);
    assertThat(changed.etag()).isNotEqualTo(first.etag());
    RulesVersion cleared = registry.load(RuleKind.FLOW, "");
    assertThat(cleared.ruleCount()).isZero();
    assertThat(registry.resource("a").tryAcquire()).isEqualTo(Permit.UNGOVERNED);
    assertThat(RuleDocument.parse(RuleKind.FLOW, "[{\"resource\":\"a\",\"count\":3}]").etag())
        .isEqualTo(changed.etag());
    assertThat(registry.describeRules(RuleKind.FLOW)).isEmpty();
  }

  @Test
  void sendsNamesPastTheCapToTheOverflowResourceAndSaysSo() {
    FlowRegistry small =
        FlowRegistry.builder()
            .ticker(ticker)
            .maxResources(3)
            .overflowListener((name, count) -> overflows.add(name + "#" + count))
            .build();
    small.load(
        RuleKind.FLOW, "[{\"resource\":\"" + FlowRegistry.OVERFLOW_RESOURCE + "\",\"count\":3}]");
    Resource a = small.resource("/users/1");
    Resource b = small.resource("/users/2");
    assertThat(a.isOverflow()).isFalse();
    assertThat(b.isOverflow()).isFalse();
    Resource c = small.resource("/users/3");
    Resource d = small.resource("/users/4");
    assertThat(c.isOverflow()).isTrue();
    assertThat(d.isOverflow()).isTrue();
    assertThat(small.overflowedResolutions()).isEqualTo(2);
    assertThat(overflows).containsExactly("/users/3#1", "/users/4#2");
    // The overflowed names share the overflow resource's rule: 3 per second together.
    assertThat(admitted(c, 5) + admitted(d, 5)).isEqualTo(3);
    assertThat(c.statistics().resource()).isEqualTo(FlowRegistry.OVERFLOW_RESOURCE);
    assertThat(c.statistics().total().passed()).isEqualTo(3);
    assertThat(c.statistics().total().blocked()).isEqualTo(7);
    // A rule naming an overflowed name gives it its own state, also for the handle it holds.
    small.load(RuleKind.FLOW, "[{\"resource\":\"/users/4\",\"count\":1}]");
    assertThat(d.isOverflow()).isFalse();
    assertThat(admitted(d, 5)).isEqualTo(1);
    assertThat(small.resource("/users/4")).isNotSameAs(d);
  }

  @Test
  void showsTrafficOnOverflowedNamesEvenWithoutOverflowRules() {
    FlowRegistry small = FlowRegistry.builder().ticker(ticker).maxResources(2).build();
    small.resource("/a");
    Resource overflowed = small.resource("/b");
    assertThat(overflowed.isOverflow()).isTrue();
    long permit = overflowed.tryAcquire();
    assertThat(Permit.isAdmitted(permit)).isTrue();
    overflowed.release(permit);
    assertThat(overflowed.statistics().total().passed()).isEqualTo(1);
    assertThat(small.statistics())
        .extracting(ResourceStatistics::resource)
        .containsExactly(FlowRegistry.OVERFLOW_RESOURCE);
  }

  @Test
  void sharesOneLimiterAmongOriginsPastTheCap() {
    FlowRegistry small = FlowRegistry.builder().ticker(ticker).maxOriginsPerRule(2).build();
    small.load(RuleKind.FLOW, "[{\"resource\":\"r\",\"count\":1,\"limitApp\":\"other\"}]");
    Resource r = small.resource("r");
    assertThat(admitted(r, 3, "a", null)).isEqualTo(1);
    assertThat(admitted(r, 3, "b", null)).isEqualTo(1);
    assertThat(admitted(r, 3, "c", null) + admitted(r, 3, "d", null)).isEqualTo(1);
    assertThat(small.overflowedOrigins()).isEqualTo(6);
  }

  @Test
  void appliesARegexRuleToEachMatchingResourceSeparately() {
    registry.load(RuleKind.FLOW, "[{\"resource\":\"GET /orders/.*\",\"regex\":true,\"count\":2}]");
    Resource one = registry.resource("GET /orders/1");
    Resource two = registry.resource("GET /orders/2");
    Resource users = registry.resource("GET /users/1");
    assertThat(admitted(one, 5)).isEqualTo(2);
    assertThat(admitted(two, 5)).isEqualTo(2);
    assertThat(users.tryAcquire()).isEqualTo(Permit.UNGOVERNED);
  }

  @Test
  void recordsStatisticsForGovernedResources() {
    registry.load(RuleKind.FLOW, "[{\"resource\":\"r\",\"count\":3}]");
    Resource r = registry.resource("r", Direction.INBOUND);
    ticker.advanceMillis(1000 - (registry.now() / MS) % 1000);
    for (int i = 0; i < 5; i++) {
      long permit = r.tryAcquire();
      ticker.advanceMillis(2);
      r.release(permit, i == 0);
    }
    ticker.advanceMillis(1000);
    ResourceStatistics s = r.statistics();
    assertThat(s.resource()).isEqualTo("r");
    assertThat(s.lastSecond().passed()).isEqualTo(3);
    assertThat(s.lastSecond().blocked()).isEqualTo(2);
    assertThat(s.lastSecond().failed()).isEqualTo(1);
    assertThat(s.lastSecond().averageRtNanos()).isEqualTo(2.0 * MS);
    assertThat(registry.statistics())
        .extracting(ResourceStatistics::resource)
        .containsExactlyInAnyOrder("r", FlowRegistry.OVERFLOW_RESOURCE);
  }

  /** What {@link FlowRegistry#readSeconds} handed over, copied out of its reused view. */
  private record Read(long second, String resource, String counts) {}

  private List<Read> readSeconds(long afterSecond, List<Long> begun) {
    List<Read> out = new ArrayList<>();
    registry.readSeconds(
        afterSecond,
        new SecondsReader() {
          @Override
          public void beginSecond(long second) {
            begun.add(second);
          }

          @Override
          public void resource(SecondCounts c) {
            out.add(new Read(c.second(), c.resource(), c.toString()));
          }
        });
    return out;
  }

  @Test
  void readsEachCompleteSecondAsTheFullSnapshotHasIt() {
    registry.load(RuleKind.FLOW, "[{\"resource\":\"r\",\"count\":3}]");
    Resource r = registry.resource("r", Direction.INBOUND);
    registry.resource("idle", Direction.INBOUND); // no rule: no statistics, never read
    ticker.advanceMillis(1000 - (registry.now() / MS) % 1000);
    long read = registry.now() / 1000 / MS - 1;
    for (int second = 0; second < 3; second++) {
      for (int i = 0; i < 5 + second; i++) {
        long permit = r.tryAcquire();
        ticker.advanceMillis(3 + i);
        r.release(permit, i == 1);
      }
      long held = r.tryAcquire(); // refused: the limit is reached
      ticker.advanceMillis(1000 - (registry.now() / MS) % 1000);
      WindowStatistics full = r.statistics().lastSecond();
      int blocked = 3 + second;
      SecondCounts[] seen = new SecondCounts[1];
      List<Long> begun = new ArrayList<>();
      long last =
          registry.readSeconds(
              read,
              new SecondsReader() {
                @Override
                public void beginSecond(long s) {
                  begun.add(s);
                }

                @Override
                public void resource(SecondCounts c) {
                  assertThat(c.resource()).isEqualTo("r");
                  assertThat(c.passed()).isEqualTo(full.passed()).isEqualTo(3);
                  assertThat(c.blocked()).isEqualTo(full.blocked()).isEqualTo(blocked);
                  assertThat(c.failed()).isEqualTo(full.failed());
                  assertThat(c.timedCompletions()).isEqualTo(full.timedCompletions());
                  assertThat(c.averageRtNanos()).isEqualTo((long) full.averageRtNanos());
                  assertThat(c.p50Nanos()).isEqualTo(full.percentileNanos(0.5));
                  assertThat(c.p99Nanos()).isEqualTo(full.percentileNanos(0.99));
                  assertThat(c.concurrency()).isZero();
                  seen[0] = c;
                }
              });
      assertThat(last).isEqualTo(read + 1);
      assertThat(begun).containsExactly(last);
      assertThat(seen[0]).isNotNull();
      read = last;
      assertThat(Permit.isAdmitted(held)).isFalse();
    }
  }

  @Test
  void readsOnlyTheSecondsWithCallsAndCatchesUpWithAFewMissedOnes() {
    registry.load(RuleKind.FLOW, "[{\"resource\":\"r\",\"count\":100}]");
    Resource r = registry.resource("r", Direction.INBOUND);
    ticker.advanceMillis(1000 - (registry.now() / MS) % 1000);
    long start = registry.now() / 1000 / MS;
    for (int second = 0; second < 3; second++) {
      for (int i = 0; i <= second; i++) {
        r.release(r.tryAcquire());
      }
      ticker.advanceMillis(1000);
    }
    ticker.advanceMillis(1000); // a quiet second
    List<Long> begun = new ArrayList<>();
    List<Read> read = readSeconds(start - 1, begun);
    // The reader was late: the three seconds it missed and the quiet one, the latter empty.
    assertThat(begun).containsExactly(start + 1, start + 2, start + 3);
    assertThat(read)
        .extracting(Read::second)
        .containsExactly(start + 1, start + 2); // start's has left the per-second histograms
    assertThat(read.get(0).counts()).contains("passed=2,");
    assertThat(read.get(1).counts()).contains("passed=3,");
    assertThat(readSeconds(start + 3, new ArrayList<>())).isEmpty();

    long held = r.tryAcquire();
    ticker.advanceMillis(1000);
    assertThat(readSeconds(start + 3, new ArrayList<>()))
        .extracting(Read::counts)
        .singleElement()
        .asString()
        .contains("passed=1,", "concurrency=1");
    ticker.advanceMillis(1000);
    // Still running in a quiet second: reported with no calls, so a chart shows it.
    assertThat(readSeconds(start + 4, new ArrayList<>()))
        .extracting(Read::counts)
        .singleElement()
        .asString()
        .contains("passed=0,", "concurrency=1");
    r.release(held);
    ticker.advanceMillis(1000);
    assertThat(readSeconds(start + 5, new ArrayList<>())).isEmpty();
  }

  @Test
  void timesEveryCallForASlowCallBreakerButOnlyASampleOtherwise() {
    registry.load(
        RuleKind.DEGRADE, "[{\"resource\":\"slow\",\"grade\":0,\"count\":5,\"timeWindow\":1}]");
    registry.load(RuleKind.FLOW, "[{\"resource\":\"fast\",\"count\":1000}]");
    Resource slow = registry.resource("slow");
    Resource fast = registry.resource("fast");
    ticker.advanceMillis(1000 - (registry.now() / MS) % 1000);
    for (int i = 0; i < 10; i++) {
      // Ten calls at the same instant: within one 10 us sample gap.
      slow.release(slow.tryAcquire());
      fast.release(fast.tryAcquire());
    }
    ticker.advanceMillis(1000);
    assertThat(slow.statistics().lastSecond().timedCompletions()).isEqualTo(10);
    assertThat(fast.statistics().lastSecond().timedCompletions()).isEqualTo(1);
    assertThat(fast.statistics().lastSecond().completed()).isEqualTo(10);
  }

  @Test
  void recordsStatisticsForEveryResourceWhenAskedTo() {
    FlowRegistry all =
        FlowRegistry.builder().ticker(ticker).statisticsForAllResources(true).build();
    Resource r = all.resource("anything");
    long permit = r.tryAcquire();
    assertThat(permit).isNotEqualTo(Permit.UNGOVERNED);
    r.release(permit);
    assertThat(r.statistics().total().passed()).isEqualTo(1);
    assertThat(r.statistics().total().completed()).isEqualTo(1);
  }

  @Test
  void undoesWhatAPermitCountedEvenAfterItsRuleWasRemoved() {
    registry.load(RuleKind.FLOW, "[{\"resource\":\"r\",\"grade\":0,\"count\":1}]");
    registry.load(RuleKind.SYSTEM, "[{\"maxThread\":1}]");
    Resource r = registry.resource("r", Direction.INBOUND);
    long held = r.tryAcquire();
    assertThat(Permit.isAdmitted(held)).isTrue();
    registry.load(RuleKind.FLOW, "");
    registry.load(RuleKind.SYSTEM, "");
    r.release(held);
    registry.load(RuleKind.FLOW, "[{\"resource\":\"r\",\"grade\":0,\"count\":1}]");
    registry.load(RuleKind.SYSTEM, "[{\"maxThread\":1}]");
    assertThat(Permit.isAdmitted(r.tryAcquire())).isTrue();
    assertThat(Permit.isBlocked(r.tryAcquire())).isTrue();
  }

  @Test
  void rejectsNonsenseConfiguration() {
    assertThatThrownBy(() -> FlowRegistry.builder().maxResources(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxResources must be at least 1, got 0");
    assertThatThrownBy(() -> FlowRegistry.builder().ticker(null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> registry.resource("")).isInstanceOf(IllegalArgumentException.class);
  }
}
