package io.sluice.bench.flow;

import com.alibaba.csp.sentinel.slots.block.RuleConstant;
import com.alibaba.csp.sentinel.slots.block.degrade.DegradeRule;
import com.alibaba.csp.sentinel.slots.block.degrade.DegradeRuleManager;
import com.alibaba.csp.sentinel.slots.block.flow.FlowRule;
import com.alibaba.csp.sentinel.slots.block.flow.FlowRuleManager;
import java.util.ArrayList;
import java.util.List;

/** Loads Sentinel rules through its static managers (Sentinel offers nothing else). */
final class SentinelSetup {

  private SentinelSetup() {}

  static void qpsRules(List<String> resources, double count) {
    List<FlowRule> rules = new ArrayList<>();
    for (String resource : resources) {
      FlowRule rule = new FlowRule(resource);
      rule.setGrade(RuleConstant.FLOW_GRADE_QPS);
      rule.setCount(count);
      rules.add(rule);
    }
    FlowRuleManager.loadRules(rules);
  }

  static void errorRatioBreaker(String resource) {
    DegradeRule rule = new DegradeRule(resource);
    rule.setGrade(RuleConstant.DEGRADE_GRADE_EXCEPTION_RATIO);
    rule.setCount(0.5);
    rule.setTimeWindow(10);
    rule.setMinRequestAmount(5);
    rule.setStatIntervalMs(1000);
    DegradeRuleManager.loadRules(List.of(rule));
  }
}
