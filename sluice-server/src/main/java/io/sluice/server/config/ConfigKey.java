package io.sluice.server.config;

import java.util.Objects;

/**
 * Where a config lives: namespace, group, data id. The public namespace has two spellings in the
 * wild ({@code ""} in 2.x clients, {@code "public"} in 3.x); both map to {@link #PUBLIC}, so a
 * config published by one generation is seen by the other.
 */
public record ConfigKey(String namespace, String group, String dataId) {
  /** The canonical id of the public namespace. */
  public static final String PUBLIC = "";

  public ConfigKey {
    namespace = canonicalNamespace(namespace);
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(dataId, "dataId");
  }

  public static ConfigKey of(String namespace, String group, String dataId) {
    return new ConfigKey(namespace, group, dataId);
  }

  public static String canonicalNamespace(String namespace) {
    if (namespace == null || namespace.isBlank() || namespace.equals("public")) {
      return PUBLIC;
    }
    return namespace;
  }

  @Override
  public String toString() {
    return (namespace.isEmpty() ? "public" : namespace) + "/" + group + "/" + dataId;
  }
}
