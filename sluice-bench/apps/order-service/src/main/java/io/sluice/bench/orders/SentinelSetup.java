package io.sluice.bench.orders;

import com.alibaba.csp.sentinel.adapter.spring.webmvc_v6x.SentinelWebInterceptor;
import com.alibaba.csp.sentinel.adapter.spring.webmvc_v6x.config.SentinelWebMvcConfig;
import com.alibaba.csp.sentinel.datasource.nacos.NacosDataSource;
import com.alibaba.csp.sentinel.slots.block.RuleConstant;
import com.alibaba.csp.sentinel.slots.block.degrade.DegradeRule;
import com.alibaba.csp.sentinel.slots.block.degrade.DegradeRuleManager;
import com.alibaba.csp.sentinel.slots.block.flow.FlowRule;
import com.alibaba.csp.sentinel.slots.block.flow.FlowRuleManager;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Sentinel as its Spring MVC users wire it: the official {@link SentinelWebInterceptor} on every
 * path, resource {@code /orders/{id}} (the adapter names it by the pattern alone), and, by {@code bench.sentinel}:
 *
 * <ul>
 *   <li>{@code stats}: no rule, statistics only (what the adapter always records);
 *   <li>{@code flow}: one QPS flow rule of {@code bench.sentinel.flow-qps} (3,000), refusals 429;
 *   <li>{@code breaker}: one slow-call-ratio breaker (slow above 50 ms, opens at 50 % slow calls
 *       over at least 5 calls in 1 s, for 10 s), which the 5 ± 2 ms handler does not trip;
 *   <li>{@code nacos}: flow rules from {@code sentinel-datasource-nacos} watching {@code
 *       bench.sentinel.nacos} (group {@code SENTINEL_GROUP}, dataId {@code
 *       order-service-flow-rules}), for the rule-push delay.
 * </ul>
 */
@Configuration
@ConditionalOnExpression("'${bench.sentinel:off}' != 'off'")
public class SentinelSetup implements WebMvcConfigurer {
  static final String RESOURCE = "/orders/{id}";
  static final String GROUP = "SENTINEL_GROUP";
  static final String FLOW_DATA_ID = "order-service-flow-rules";

  private static final ObjectMapper json =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final String mode;

  public SentinelSetup(
      @Value("${bench.sentinel}") String mode,
      @Value("${bench.sentinel.flow-qps:3000}") double flowQps,
      @Value("${bench.sentinel.nacos:}") String nacos) {
    this.mode = mode;
    switch (mode) {
      case "stats" -> {}
      case "flow" -> FlowRuleManager.loadRules(List.of(flowRule(flowQps)));
      case "breaker" -> DegradeRuleManager.loadRules(List.of(slowCallBreaker()));
      case "nacos" -> {
        if (nacos.isBlank()) {
          throw new IllegalArgumentException("bench.sentinel=nacos needs bench.sentinel.nacos");
        }
        NacosDataSource<List<FlowRule>> source =
            new NacosDataSource<>(
                nacos,
                GROUP,
                FLOW_DATA_ID,
                text -> {
                  try {
                    return List.of(json.readValue(text, FlowRule[].class));
                  } catch (Exception e) {
                    throw new IllegalArgumentException("not a flow rule list: " + text, e);
                  }
                });
        FlowRuleManager.register2Property(source.getProperty());
      }
      default ->
          throw new IllegalArgumentException(
              "bench.sentinel must be off, stats, flow, breaker or nacos, not " + mode);
    }
  }

  static FlowRule flowRule(double qps) {
    FlowRule rule = new FlowRule(RESOURCE);
    rule.setGrade(RuleConstant.FLOW_GRADE_QPS);
    rule.setCount(qps);
    return rule;
  }

  static DegradeRule slowCallBreaker() {
    DegradeRule rule = new DegradeRule(RESOURCE);
    rule.setGrade(RuleConstant.DEGRADE_GRADE_RT);
    rule.setCount(50);
    rule.setSlowRatioThreshold(0.5);
    rule.setMinRequestAmount(5);
    rule.setStatIntervalMs(1000);
    rule.setTimeWindow(10);
    return rule;
  }

  @Override
  public void addInterceptors(InterceptorRegistry registry) {
    SentinelWebMvcConfig config = new SentinelWebMvcConfig();
    config.setWebContextUnify(true);
    config.setBlockExceptionHandler(
        (request, response, resource, e) -> {
          response.setStatus(429);
          response.getWriter().write("{\"blocked\":\"" + e.getClass().getSimpleName() + "\"}");
        });
    registry.addInterceptor(new SentinelWebInterceptor(config)).addPathPatterns("/**");
  }

  @Override
  public String toString() {
    return "SentinelSetup[" + mode + "]";
  }
}
