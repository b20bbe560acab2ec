package io.sluice.agent.rules;

/**
 * The kinds of Sentinel-format rule documents the agent watches, each a JSON array stored under
 * {@code {app}-<suffix>} in group {@code SENTINEL_GROUP} (Spring Cloud Alibaba's convention).
 */
public enum RuleType {
  FLOW("flow-rules"),
  DEGRADE("degrade-rules"),
  PARAM_FLOW("param-flow-rules"),
  SYSTEM("system-rules"),
  AUTHORITY("authority-rules");

  public static final String GROUP = "SENTINEL_GROUP";

  private final String dataIdSuffix;

  RuleType(String dataIdSuffix) {
    this.dataIdSuffix = dataIdSuffix;
  }

  public String dataId(String applicationName) {
    return applicationName + "-" + dataIdSuffix;
  }
}
