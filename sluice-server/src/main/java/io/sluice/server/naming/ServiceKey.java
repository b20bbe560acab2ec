package io.sluice.server.naming;

import java.util.Objects;

/**
 * A service: namespace, group, name (ungrouped). The public namespace is written {@code "public"}
 * by 2.x naming clients and {@code ""} by some tools; both map to {@link #PUBLIC}.
 */
public record ServiceKey(String namespace, String group, String name) {
  public static final String PUBLIC = "public";
  public static final String DEFAULT_GROUP = "DEFAULT_GROUP";

  /** Nacos joins group and service name with this in "grouped" names. */
  public static final String GROUP_SEPARATOR = "@@";

  public ServiceKey {
    namespace = canonicalNamespace(namespace);
    group = group == null || group.isBlank() ? DEFAULT_GROUP : group;
    Objects.requireNonNull(name, "name");
  }

  /**
   * Written out, as is {@link #hashCode}: every query looks its service up by a fresh key, and the
   * record's generated {@code equals} (method handles) was not inlined into that lookup, 1.3 % of a
   * query's CPU in the netty-h2 profile. Components are never null (see the constructor).
   */
  @Override
  public boolean equals(Object other) {
    return other == this
        || other instanceof ServiceKey key
            && name.equals(key.name)
            && group.equals(key.group)
            && namespace.equals(key.namespace);
  }

  @Override
  public int hashCode() {
    return (namespace.hashCode() * 31 + group.hashCode()) * 31 + name.hashCode();
  }

  public static ServiceKey of(String namespace, String group, String name) {
    return new ServiceKey(namespace, group, name);
  }

  /**
   * Parses a possibly grouped name ({@code group@@name}); a plain name takes {@code group} (or the
   * default group).
   */
  public static ServiceKey parse(String namespace, String group, String possiblyGroupedName) {
    int separator = possiblyGroupedName.indexOf(GROUP_SEPARATOR);
    if (separator >= 0) {
      return new ServiceKey(
          namespace,
          possiblyGroupedName.substring(0, separator),
          possiblyGroupedName.substring(separator + GROUP_SEPARATOR.length()));
    }
    return new ServiceKey(namespace, group, possiblyGroupedName);
  }

  public static String canonicalNamespace(String namespace) {
    return namespace == null || namespace.isBlank() ? PUBLIC : namespace;
  }

  /** {@code group@@name}, as instances report their service and v1 APIs name services. */
  public String groupedName() {
    return group + GROUP_SEPARATOR + name;
  }

  @Override
  public String toString() {
    return namespace + "/" + groupedName();
  }
}
