package io.sluice.agent.rules;

/**
 * The kinds of rule documents the agent watches: the Sentinel-format ones, each a JSON array stored
 * under {@code {app}-<suffix>} in group {@code SENTINEL_GROUP} (Spring Cloud Alibaba's convention),
 * and Sluice's lane document, one for all applications of a namespace: {@code lanes} in group
 * {@code SLUICE}.
 */
public enum RuleType {
  FLOW("flow-rules"),
  DEGRADE("degrade-rules"),
  PARAM_FLOW("param-flow-rules"),
  SYSTEM("system-rules"),
  AUTHORITY("authority-rules"),
  LANES(null);

  public static final String GROUP = "SENTINEL_GROUP";

  /** The group of Sluice's own documents. */
  public static final String SLUICE_GROUP = "SLUICE";

  /** The dataId of the lane document. */
  public static final String LANES_DATA_ID = "lanes";

  private final String dataIdSuffix;

  RuleType(String dataIdSuffix) {
    this.dataIdSuffix = dataIdSuffix;
  }

  public String dataId(String applicationName) {
    return dataIdSuffix == null ? LANES_DATA_ID : applicationName + "-" + dataIdSuffix;
  }

  public String group() {
    return dataIdSuffix == null ? SLUICE_GROUP : GROUP;
  }
}
