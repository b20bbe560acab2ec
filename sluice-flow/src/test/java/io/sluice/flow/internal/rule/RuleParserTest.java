package io.sluice.flow.internal.rule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.flow.InvalidRuleDocumentException;
import io.sluice.flow.ParamSource;
import io.sluice.flow.RuleKind;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RuleParserTest {

  @Test
  void readsAFlowRuleWithSentinelDefaults() {
    List<RuleSpec> rules =
        RuleParser.parse(
            RuleKind.FLOW,
            "[{\"resource\":\"TestResource\",\"controlBehavior\":0,\"count\":5.0,\"grade\":1,"
                + "\"limitApp\":\"default\",\"strategy\":0}]");
    assertThat(rules)
        .containsExactly(
            new FlowRuleSpec(
                "TestResource",
                false,
                OriginScope.DEFAULT,
                FlowRuleSpec.GRADE_QPS,
                5.0,
                FlowRuleSpec.STRATEGY_DIRECT,
                null,
                FlowRuleSpec.BEHAVIOR_REJECT,
                0,
                0,
                0,
                false));
  }

  @Test
  void acceptsWhatTheSentinelDashboardWritesIncludingUnknownFieldsAndNulls() {
    String dashboard =
        "[{\"id\":3,\"app\":\"order\",\"ip\":\"10.0.0.1\",\"port\":8719,\"limitApp\":\"default\","
            + "\"resource\":\"GET:/api/order\",\"grade\":1,\"count\":100.0,\"strategy\":0,"
            + "\"refResource\":null,\"controlBehavior\":1,\"warmUpPeriodSec\":10,"
            + "\"maxQueueingTimeMs\":500,\"clusterMode\":false,\"clusterConfig\":{\"flowId\":null,"
            + "\"thresholdType\":0,\"fallbackToLocalWhenFail\":true},"
            + "\"gmtCreate\":1700000000000,\"gmtModified\":1700000000000}]";
    FlowRuleSpec rule = (FlowRuleSpec) RuleParser.parse(RuleKind.FLOW, dashboard).get(0);
    assertThat(rule.controlBehavior()).isEqualTo(FlowRuleSpec.BEHAVIOR_WARM_UP);
    assertThat(rule.warmUpPeriodSec()).isEqualTo(10);
    assertThat(rule.coldFactor()).isEqualTo(3);
  }

  @Test
  void readsLimitAppAsDefaultOtherOrASortedListOfOrigins() {
    assertThat(OriginScope.parse(null)).isEqualTo(OriginScope.DEFAULT);
    assertThat(OriginScope.parse(" ")).isEqualTo(OriginScope.DEFAULT);
    assertThat(OriginScope.parse("other")).isEqualTo(OriginScope.OTHER);
    OriginScope named = OriginScope.parse(" appB, appA ,,appB");
    assertThat(named.kind()).isEqualTo(OriginScope.Kind.NAMED);
    assertThat(named.names()).containsExactlyInAnyOrder("appA", "appB");
    assertThat(named.toString()).isEqualTo("appA,appB");
    assertThat(OriginScope.parse("appA,appB")).isEqualTo(OriginScope.parse("appB,appA"));
  }

  @Test
  void countsIdenticalRulesOnce() {
    assertThat(
            RuleParser.parse(
                RuleKind.FLOW,
                "[{\"resource\":\"r\",\"count\":1},{\"resource\":\"r\",\"count\":1}]"))
        .hasSize(1);
  }

  @Test
  void treatsABlankDocumentAsNoRules() {
    assertThat(RuleParser.parse(RuleKind.FLOW, "")).isEmpty();
    assertThat(RuleParser.parse(RuleKind.FLOW, "  \n")).isEmpty();
    assertThat(RuleParser.parse(RuleKind.FLOW, null)).isEmpty();
    assertThat(RuleParser.parse(RuleKind.FLOW, "[]")).isEmpty();
  }

  @Test
  void rejectsTheWholeDocumentNamingTheRuleAndTheField() {
    assertRejected(
        RuleKind.FLOW,
        "[{\"resource\":\"a\",\"count\":1},{\"resource\":\"b\",\"count\":\"ten\"}]",
        "FLOW rules rejected: rule #2 (resource \"b\"): \"count\" must be a number, got \"ten\"");
  }

  @Test
  void rejectsInvalidFlowRules() {
    assertRejected(RuleKind.FLOW, "{\"resource\":\"a\"}", "must be a JSON array");
    assertRejected(RuleKind.FLOW, "[1]", "rule #1 is not a JSON object");
    assertRejected(RuleKind.FLOW, "[{\"count\":1}]", "\"resource\" is required");
    assertRejected(RuleKind.FLOW, "[{\"resource\":\" \",\"count\":1}]", "\"resource\" is required");
    assertRejected(RuleKind.FLOW, "[{\"resource\":\"a\"}]", "\"count\" is required");
    assertRejected(RuleKind.FLOW, "[{\"resource\":\"a\",\"count\":-1}]", "\"count\" must be in");
    assertRejected(
        RuleKind.FLOW, "[{\"resource\":\"a\",\"count\":1,\"grade\":2}]", "\"grade\" must be in");
    assertRejected(
        RuleKind.FLOW, "[{\"resource\":\"a\",\"count\":1,\"grade\":1.5}]", "must be an integer");
    assertRejected(
        RuleKind.FLOW,
        "[{\"resource\":\"a\",\"count\":1,\"strategy\":1}]",
        "\"refResource\" is required");
    assertRejected(
        RuleKind.FLOW,
        "[{\"resource\":\"a\",\"count\":1,\"controlBehavior\":1,\"warmUpPeriodSec\":0}]",
        "\"warmUpPeriodSec\" must be > 0");
    assertRejected(
        RuleKind.FLOW,
        "[{\"resource\":\"a\",\"count\":1,\"grade\":0,\"limitApp\":\"appA\"}]",
        "THREAD grade with limitApp \"appA\" is not supported");
    assertRejected(
        RuleKind.FLOW,
        "[{\"resource\":\"a\",\"count\":1,\"strategy\":1,\"refResource\":\"b\","
            + "\"controlBehavior\":2}]",
        "RELATE with a warm-up or rate-limiter behaviour is not supported");
    assertRejected(
        RuleKind.FLOW,
        "[{\"resource\":\"a(\",\"count\":1,\"regex\":true}]",
        "not a valid regular expression");
    assertRejected(
        RuleKind.FLOW,
        "[{\"resource\":\"a\",\"count\":1,\"clusterMode\":\"no\"}]",
        "true or false");
  }

  @Test
  void readsADegradeRuleWithSentinelDefaults() {
    DegradeRuleSpec rule =
        (DegradeRuleSpec)
            RuleParser.parse(
                    RuleKind.DEGRADE,
                    "[{\"resource\":\"remoteCall\",\"grade\":0,\"count\":200,\"timeWindow\":10}]")
                .get(0);
    assertThat(rule)
        .isEqualTo(
            new DegradeRuleSpec(
                "remoteCall", DegradeRuleSpec.GRADE_SLOW_RATIO, 200, 1.0, 10_000, 5, 1000, 1));
  }

  @Test
  void rejectsInvalidDegradeRules() {
    assertRejected(
        RuleKind.DEGRADE,
        "[{\"resource\":\"a\",\"grade\":1,\"count\":1.5,\"timeWindow\":1}]",
        "\"count\" must be in [0, 1]");
    assertRejected(
        RuleKind.DEGRADE,
        "[{\"resource\":\"a\",\"grade\":2,\"count\":1,\"timeWindow\":0}]",
        "\"timeWindow\" must be in");
    assertRejected(
        RuleKind.DEGRADE,
        "[{\"resource\":\"a\",\"grade\":2,\"count\":1,\"timeWindow\":1,\"minRequestAmount\":0}]",
        "\"minRequestAmount\" must be in");
    assertRejected(
        RuleKind.DEGRADE,
        "[{\"resource\":\"a\",\"grade\":0,\"count\":1,\"timeWindow\":1,\"slowRatioThreshold\":2}]",
        "\"slowRatioThreshold\" must be in");
    assertRejected(
        RuleKind.DEGRADE,
        "[{\"resource\":\"a\",\"grade\":2,\"count\":1,\"timeWindow\":1,\"probeCalls\":0}]",
        "\"probeCalls\" must be in");
  }

  @Test
  void readsAParamFlowRuleWithTypedExceptionItems() {
    ParamFlowRuleSpec rule =
        (ParamFlowRuleSpec)
            RuleParser.parse(
                    RuleKind.PARAM_FLOW,
                    "[{\"resource\":\"getUser\",\"paramIdx\":0,\"count\":50,\"paramFlowItemList\":["
                        + "{\"object\":\"vip-42\",\"classType\":\"java.lang.String\",\"count\":500},"
                        + "{\"object\":\"7\",\"classType\":\"int\",\"count\":0},"
                        + "{\"object\":\"8\",\"classType\":\"long\",\"count\":1}]}]")
                .get(0);
    assertThat(rule.exceptions())
        .isEqualTo(Map.of("vip-42", 500L, Integer.valueOf(7), 0L, Long.valueOf(8), 1L));
    assertThat(rule.durationInSec()).isEqualTo(1);
    assertThat(rule.burstCount()).isZero();
  }

  @Test
  void rejectsInvalidParamFlowRules() {
    assertRejected(
        RuleKind.PARAM_FLOW, "[{\"resource\":\"a\",\"count\":1}]", "\"paramIdx\" is required");
    assertRejected(
        RuleKind.PARAM_FLOW,
        "[{\"resource\":\"a\",\"count\":1,\"paramIdx\":0,\"grade\":0}]",
        "THREAD grade hot-parameter rules are not supported");
    assertRejected(
        RuleKind.PARAM_FLOW,
        "[{\"resource\":\"a\",\"count\":1,\"paramIdx\":0,\"paramFlowItemList\":"
            + "[{\"object\":\"x\",\"classType\":\"int\",\"count\":1}]}]",
        "paramFlowItemList[0].object \"x\" is not a int");
    assertRejected(
        RuleKind.PARAM_FLOW,
        "[{\"resource\":\"a\",\"count\":1,\"paramIdx\":0,\"paramFlowItemList\":"
            + "[{\"object\":\"x\",\"count\":-1}]}]",
        "paramFlowItemList[0].count must be an integer >= 0");
    assertRejected(
        RuleKind.PARAM_FLOW,
        "[{\"resource\":\"a\",\"count\":1,\"paramIdx\":0,\"durationInSec\":0}]",
        "\"durationInSec\" must be in");
    assertRejected(
        RuleKind.PARAM_FLOW,
        "[{\"resource\":\"a\",\"count\":1,\"paramSource\":{\"hedaer\":\"x-user\"}}]",
        "\"paramSource\" has unknown member \"hedaer\"; use header, query or cookie");
    assertRejected(
        RuleKind.PARAM_FLOW,
        "[{\"resource\":\"a\",\"count\":1,\"paramSource\":{\"header\":\"a\",\"query\":\"b\"}}]",
        "\"paramSource\" must be an object with one member");
    assertRejected(
        RuleKind.PARAM_FLOW,
        "[{\"resource\":\"a\",\"count\":1,\"paramSource\":{\"query\":\" \"}}]",
        "\"paramSource\".query must be a non-empty string");
  }

  @Test
  void readsAParamSourceInsteadOfAnArgumentIndex() {
    ParamFlowRuleSpec rule =
        (ParamFlowRuleSpec)
            RuleParser.parse(
                    RuleKind.PARAM_FLOW,
                    "[{\"resource\":\"GET /orders\",\"count\":3,"
                        + "\"paramSource\":{\"header\":\" X-User-Id \"}}]")
                .get(0);
    assertThat(rule.source()).isEqualTo(new ParamSource(ParamSource.Kind.HEADER, "X-User-Id"));
    assertThat(rule.describe())
        .isEqualTo(
            "param-flow rule {resource=GET /orders, paramSource=header 'X-User-Id', count=3.0,"
                + " durationInSec=1}");
  }

  @Test
  void readsSystemRulesTurningNegativeThresholdsOff() {
    SystemRuleSpec rule =
        (SystemRuleSpec)
            RuleParser.parse(
                    RuleKind.SYSTEM,
                    "[{\"highestSystemLoad\":8.0,\"highestCpuUsage\":0.9,\"qps\":-5,\"avgRt\":50}]")
                .get(0);
    assertThat(rule).isEqualTo(new SystemRuleSpec(8.0, 0.9, -1, 50, -1));
    assertRejected(RuleKind.SYSTEM, "[{\"highestCpuUsage\":90}]", "\"highestCpuUsage\" must be");
  }

  @Test
  void readsAuthorityRules() {
    AuthorityRuleSpec rule =
        (AuthorityRuleSpec)
            RuleParser.parse(
                    RuleKind.AUTHORITY,
                    "[{\"resource\":\"adminApi\",\"limitApp\":\"appA, appB\",\"strategy\":1}]")
                .get(0);
    assertThat(rule).isEqualTo(new AuthorityRuleSpec("adminApi", Set.of("appA", "appB"), false));
    assertRejected(
        RuleKind.AUTHORITY, "[{\"resource\":\"a\"}]", "\"limitApp\" must list at least one");
  }

  @Test
  void givesEqualRulesEqualCanonicalFormsWhateverTheFieldOrder() {
    RuleSpec a =
        RuleParser.parse(RuleKind.AUTHORITY, "[{\"resource\":\"r\",\"limitApp\":\"b,a\"}]").get(0);
    RuleSpec b =
        RuleParser.parse(RuleKind.AUTHORITY, "[{\"limitApp\":\"a,b\",\"resource\":\"r\"}]").get(0);
    assertThat(a).isEqualTo(b);
    assertThat(CanonicalForm.of(a)).isEqualTo(CanonicalForm.of(b));
  }

  private static void assertRejected(RuleKind kind, String json, String message) {
    assertThatThrownBy(() -> RuleParser.parse(kind, json))
        .isInstanceOf(InvalidRuleDocumentException.class)
        .hasMessageContaining(message);
  }
}
