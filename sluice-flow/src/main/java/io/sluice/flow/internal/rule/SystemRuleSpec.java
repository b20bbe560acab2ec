package io.sluice.flow.internal.rule;

import io.sluice.flow.RuleKind;

/**
 * A Sentinel {@code SystemRule}; a negative threshold is off.
 *
 * @param highestSystemLoad one-minute load average above which concurrency is capped at capacity
 * @param highestCpuUsage CPU usage in [0, 1] above which inbound admission is reduced
 * @param qps inbound calls per second
 * @param avgRt average inbound response time in ms above which admission is reduced
 * @param maxThread inbound calls in flight
 */
public record SystemRuleSpec(
    double highestSystemLoad, double highestCpuUsage, double qps, double avgRt, long maxThread)
    implements RuleSpec {

  @Override
  public RuleKind kind() {
    return RuleKind.SYSTEM;
  }

  @Override
  public String resource() {
    return null;
  }

  @Override
  public String describe() {
    StringBuilder s = new StringBuilder("system rule {");
    String sep = "";
    if (highestSystemLoad >= 0) {
      s.append("highestSystemLoad=").append(highestSystemLoad);
      sep = ", ";
    }
    if (highestCpuUsage >= 0) {
      s.append(sep).append("highestCpuUsage=").append(highestCpuUsage);
      sep = ", ";
    }
    if (qps >= 0) {
      s.append(sep).append("qps=").append(qps);
      sep = ", ";
    }
    if (avgRt >= 0) {
      s.append(sep).append("avgRt=").append(avgRt);
      sep = ", ";
    }
    if (maxThread >= 0) {
      s.append(sep).append("maxThread=").append(maxThread);
    }
    return s.append('}').toString();
  }
}
