package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.logging.AgentLog;
import io.sluice.agent.rules.InvalidRulesException;
import io.sluice.agent.rules.RuleType;
import io.sluice.flow.FlowRegistry;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The governance glue over a real sluice-flow registry, with time under the test's control. */
class FlowGovernorTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final List<String> names = new ArrayList<>();
  private final FlowGovernor governor =
      new FlowGovernor(
          FlowRegistry.builder().ticker(nanos::get).build(),
          FlowGovernor.verdicts(429, 503, 1),
          names::add,
          AgentLog.toStream(System.err, AgentLog.Level.WARN));

  @Test
  void aRouteWithoutRulesIsUngoverned() {
    Object resource = governor.inboundResource("GET", "/orders/{id}");

    assertThat(resource).isNotNull();
    assertThat(governor.acquire(resource)).isEqualTo(GovernanceHooks.UNGOVERNED);
  }

  @Test
  void refusesAboveTheLimitWithTheFlowVerdict() throws Exception {
    governor.apply(RuleType.FLOW, "[{\"resource\":\"GET /orders/{id}\",\"count\":2}]");
    Object resource = governor.inboundResource("GET", "/orders/{id}");

    long first = governor.acquire(resource);
    long second = governor.acquire(resource);
    long third = governor.acquire(resource);

    assertThat(first).isPositive();
    assertThat(second).isPositive();
    assertThat(third).isNegative();
    BlockVerdict verdict = governor.refusal(resource, third);
    assertThat(verdict.status()).isEqualTo(429);
    assertThat(verdict.retryAfter()).isEqualTo("1");
    governor.release(resource, first, 200, null);
    governor.release(resource, second, 200, null);

    nanos.addAndGet(1_100_000_000L); // the calls above have left the one-second window
    assertThat(governor.acquire(resource)).isPositive();
  }

  @Test
  void answersAnOpenBreakerWithTheDegradeVerdict() throws Exception {
    governor.apply(
        RuleType.DEGRADE,
        "[{\"resource\":\"GET /work\",\"grade\":2,\"count\":1,\"minRequestAmount\":1,"
            + "\"statIntervalMs\":1000,\"timeWindow\":5}]");
    Object resource = governor.inboundResource("GET", "/work");

    for (int i = 0; i < 3; i++) {
      long permit = governor.acquire(resource);
      if (permit > 0) {
        governor.release(resource, permit, 500, null); // a 5xx counts as an error
      }
    }
    long refused = governor.acquire(resource);

    assertThat(refused).isNegative();
    assertThat(governor.refusal(resource, refused).status()).isEqualTo(503);
  }

  @Test
  void limitsByTheOriginInTheCurrentContext() throws Exception {
    governor.apply(RuleType.FLOW, "[{\"resource\":\"GET /a\",\"count\":1,\"limitApp\":\"batch\"}]");
    Object resource = governor.inboundResource("GET", "/a");

    try (SluiceContext.Scope ignored = SluiceContext.attach(SluiceContext.of("batch", null))) {
      assertThat(governor.acquire(resource)).isPositive();
      assertThat(governor.acquire(resource)).isNegative();
    }
    try (SluiceContext.Scope ignored = SluiceContext.attach(SluiceContext.of("web", null))) {
      assertThat(governor.acquire(resource)).isNotNegative();
    }
  }

  @Test
  void namesOutboundCallsOnlyWhileSomeRuleNamesAnOutboundResource() throws Exception {
    URI uri = URI.create("http://stock:8080/items/42");
    governor.apply(RuleType.FLOW, "[{\"resource\":\"GET /orders/{id}\",\"count\":2}]");
    assertThat(governor.outboundResource("GET", uri, null)).isNull();

    governor.apply(
        RuleType.DEGRADE,
        "[{\"resource\":\"GET stock:8080/items/{id}\",\"grade\":2,\"count\":1,\"timeWindow\":1}]");
    assertThat(governor.outboundResource("GET", uri, null)).isNotNull();

    governor.apply(RuleType.DEGRADE, null);
    assertThat(governor.outboundResource("GET", uri, null)).isNull();
  }

  @Test
  void keepsTheRulesInForceWhenADocumentIsInvalid() throws Exception {
    governor.apply(RuleType.FLOW, "[{\"resource\":\"GET /a\",\"count\":1}]");

    assertThatThrownBy(() -> governor.apply(RuleType.FLOW, "{not json"))
        .isInstanceOf(InvalidRulesException.class);

    Object resource = governor.inboundResource("GET", "/a");
    assertThat(governor.acquire(resource)).isPositive();
    assertThat(governor.acquire(resource)).isNegative();
  }

  @Test
  void passesSpringsApplicationNameOn() {
    governor.springEnvironmentPrepared("orders");
    assertThat(names).containsExactly("orders");
  }
}
