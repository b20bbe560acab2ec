package io.sluice.server.naming;

import java.util.Map;

/**
 * Turns what a client sent into a well-formed {@link Instance}, or says what is wrong. Defaults are
 * Nacos's: weight 1, healthy, enabled, cluster {@code DEFAULT}, heartbeat settings from the
 * preserved metadata keys.
 */
public final class InstanceValidator {
  static final int MAX_SERVICE_NAME_LENGTH = 512;
  static final int MAX_GROUP_LENGTH = 128;
  static final int MAX_NAMESPACE_LENGTH = 128;
  static final int MAX_IP_LENGTH = 128;
  static final int MAX_CLUSTER_LENGTH = 64;
  static final double MAX_WEIGHT = 10_000;
  public static final int MAX_METADATA_ENTRIES = 128;
  static final int MAX_METADATA_BYTES = 16 * 1024;

  /**
   * Shared by every registry in the process: canonical copies of strings are values, not state, and
   * sharing them across registries only saves more. Instances read from the log use it too.
   */
  static final CanonicalStrings STRINGS = new CanonicalStrings();

  private InstanceValidator() {}

  public static void checkService(ServiceKey service) {
    checkNamespace(service.namespace());
    checkName("serviceName", service.name(), MAX_SERVICE_NAME_LENGTH);
    if (service.name().contains(ServiceKey.GROUP_SEPARATOR)) {
      throw NamingException.invalid("serviceName must not contain '@@'");
    }
    checkName("groupName", service.group(), MAX_GROUP_LENGTH);
    if (service.group().contains(ServiceKey.GROUP_SEPARATOR)) {
      throw NamingException.invalid("groupName must not contain '@@'");
    }
  }

  public static void checkNamespace(String namespace) {
    if (namespace.length() > MAX_NAMESPACE_LENGTH) {
      throw NamingException.invalid(
          "namespace is longer than " + MAX_NAMESPACE_LENGTH + " characters");
    }
    for (int i = 0; i < namespace.length(); i++) {
      char c = namespace.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '_' || c == '-')) {
        throw NamingException.invalid("namespace has an invalid character '" + c + "'");
      }
    }
  }

  /**
   * Builds an instance; null arguments take their defaults.
   *
   * @throws NamingException naming the first field that is wrong
   */
  public static Instance instance(
      ServiceKey service,
      String instanceId,
      String ip,
      int port,
      Double weight,
      Boolean healthy,
      Boolean enabled,
      boolean ephemeral,
      String clusterName,
      Map<String, String> metadata) {
    checkService(service);
    checkIp(ip);
    if (port < 0 || port > 65535) {
      throw NamingException.invalid("port must be between 0 and 65535, was " + port);
    }
    double w = weight == null ? 1.0 : weight;
    if (Double.isNaN(w) || w < 0 || w > MAX_WEIGHT) {
      throw NamingException.invalid("weight must be between 0 and 10000, was " + w);
    }
    String cluster =
        clusterName == null || clusterName.isBlank() ? Instance.DEFAULT_CLUSTER : clusterName;
    checkCluster(cluster);
    Map<String, String> meta = metadata == null ? Map.of() : metadata;
    checkMetadata(meta);
    long interval =
        preserved(meta, Instance.HEART_BEAT_INTERVAL_KEY, Instance.DEFAULT_HEART_BEAT_INTERVAL);
    long timeout =
        preserved(meta, Instance.HEART_BEAT_TIMEOUT_KEY, Instance.DEFAULT_HEART_BEAT_TIMEOUT);
    long delete =
        preserved(meta, Instance.IP_DELETE_TIMEOUT_KEY, Instance.DEFAULT_IP_DELETE_TIMEOUT);
    if (timeout < interval || delete < interval) {
      throw NamingException.invalid(
          "heart beat interval must be less than heart beat timeout and ip delete timeout");
    }
    // The generated id is not stored: it is derived from the fields whenever it is shown.
    String id =
        instanceId == null
                || instanceId.isBlank()
                || instanceId.equals(Instance.defaultInstanceId(ip, port, cluster, service))
            ? null
            : instanceId;
    if (id != null && id.length() > 1024) {
      throw NamingException.invalid("instanceId is longer than 1024 characters");
    }
    return new Instance(
        id,
        ip,
        port,
        w,
        healthy == null || healthy,
        enabled == null || enabled,
        ephemeral,
        STRINGS.of(cluster),
        STRINGS.of(meta),
        interval,
        timeout,
        delete);
  }

  public static void checkIp(String ip) {
    if (ip == null || ip.isBlank()) {
      throw NamingException.invalid("ip must not be blank");
    }
    if (ip.length() > MAX_IP_LENGTH) {
      throw NamingException.invalid("ip is longer than " + MAX_IP_LENGTH + " characters");
    }
    for (int i = 0; i < ip.length(); i++) {
      char c = ip.charAt(i);
      // IPv4, IPv6 (with zone and brackets) or a host name.
      if (!(Character.isLetterOrDigit(c)
          || c == '.'
          || c == ':'
          || c == '-'
          || c == '_'
          || c == '%'
          || c == '['
          || c == ']')) {
        throw NamingException.invalid("ip has an invalid character '" + c + "'");
      }
    }
  }

  public static void checkCluster(String cluster) {
    if (cluster.length() > MAX_CLUSTER_LENGTH) {
      throw NamingException.invalid(
          "clusterName is longer than " + MAX_CLUSTER_LENGTH + " characters");
    }
    for (int i = 0; i < cluster.length(); i++) {
      char c = cluster.charAt(i);
      if (!((c >= '0' && c <= '9')
          || (c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || c == '-')) {
        throw NamingException.invalid(
            "clusterName has an invalid character '" + c + "': use letters, digits and -");
      }
    }
  }

  public static void checkMetadata(Map<String, String> metadata) {
    if (metadata.size() > MAX_METADATA_ENTRIES) {
      throw NamingException.invalid("metadata has more than " + MAX_METADATA_ENTRIES + " entries");
    }
    long bytes = 0;
    for (Map.Entry<String, String> entry : metadata.entrySet()) {
      if (entry.getKey() == null || entry.getValue() == null) {
        throw NamingException.invalid("metadata keys and values must not be null");
      }
      bytes += entry.getKey().length() + entry.getValue().length();
    }
    if (bytes > MAX_METADATA_BYTES) {
      throw NamingException.invalid(
          "metadata is larger than " + MAX_METADATA_BYTES + " characters");
    }
  }

  private static long preserved(Map<String, String> metadata, String key, long fallback) {
    String value = metadata.get(key);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    try {
      long parsed = Long.parseLong(value.trim());
      if (parsed <= 0) {
        throw NamingException.invalid(key + " must be positive, was " + value);
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw NamingException.invalid(key + " must be a number of milliseconds, was " + value);
    }
  }

  private static void checkName(String what, String value, int maxLength) {
    if (value == null || value.isBlank()) {
      throw NamingException.invalid(what + " must not be blank");
    }
    if (value.length() > maxLength) {
      throw NamingException.invalid(what + " is longer than " + maxLength + " characters");
    }
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        throw NamingException.invalid(what + " must not contain control characters");
      }
    }
  }
}
