package io.sluice.agent.rules;

import java.util.Objects;

/**
 * A config document's address in the config center: dataId, group and tenant (the namespace; empty
 * for the default one, which Nacos also calls {@code public}).
 */
public record ConfigKey(String dataId, String group, String tenant) {
  public ConfigKey {
    Objects.requireNonNull(dataId, "dataId");
    Objects.requireNonNull(group, "group");
    tenant = tenant == null || tenant.equals("public") ? "" : tenant;
  }

  @Override
  public String toString() {
    return tenant.isEmpty() ? group + "/" + dataId : tenant + "/" + group + "/" + dataId;
  }
}
