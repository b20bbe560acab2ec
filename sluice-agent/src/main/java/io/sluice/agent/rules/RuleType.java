package io.sluice.agent.rules;

/**
 * The kinds of documents the agent watches: the Sentinel-format rules, each a JSON array stored
 * under {@code {app}-<suffix>} in group {@code SENTINEL_GROUP} (Spring Cloud Alibaba's convention);
 * Sluice's fallback document of the application, {@code {app}-fallbacks} in group {@code SLUICE};
 * and Sluice's lane document, one for all applications of a namespace: {@code lanes} in group
 * {@code SLUICE}.
 */
public enum RuleType {
  FLOW(RuleType.GROUP, "-flow-rules"),
  DEGRADE(RuleType.GROUP, "-degrade-rules"),
  PARAM_FLOW(RuleType.GROUP, "-param-flow-rules"),
  SYSTEM(RuleType.GROUP, "-system-rules"),
  AUTHORITY(RuleType.GROUP, "-authority-rules"),
  FALLBACKS(RuleType.SLUICE_GROUP, "-fallbacks"),
  LANES(RuleType.SLUICE_GROUP, null);

  public static final String GROUP = "SENTINEL_GROUP";

  /** The group of Sluice's own documents. */
  public static final String SLUICE_GROUP = "SLUICE";

  /** The dataId of the lane document. */
  public static final String LANES_DATA_ID = "lanes";

  private final String group;
  private final String dataIdSuffix;

  RuleType(String group, String dataIdSuffix) {
    this.group = group;
    this.dataIdSuffix = dataIdSuffix;
  }

  public String dataId(String applicationName) {
    return dataIdSuffix == null ? LANES_DATA_ID : applicationName + dataIdSuffix;
  }

  public String group() {
    return group;
  }
}
