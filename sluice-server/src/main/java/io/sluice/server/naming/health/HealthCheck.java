package io.sluice.server.naming.health;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.naming.NamingException;
import java.util.Locale;
import java.util.Map;

/**
 * How the server checks the persistent instances of one cluster of a service: a TCP connect to the
 * instance's port (the default, as in Nacos), an HTTP GET of a path that must answer with the
 * expected status, or no check at all.
 *
 * <p>It is configured through service metadata, which is replicated with the service: key {@value
 * #SERVICE_KEY} for every cluster of the service, {@value #SERVICE_KEY}{@code .<cluster>} for one
 * cluster (it wins). The value is Nacos's cluster {@code healthChecker} JSON ({@code
 * {"type":"HTTP","path":"/health","expectedResponseCode":200}}, {@code {"type":"TCP"}}, {@code
 * {"type":"NONE"}}) or just the type ({@code HTTP}, {@code TCP}, {@code NONE}). {@code PUT
 * /nacos/v1/ns/cluster} with a {@code healthChecker} writes the cluster key.
 */
public record HealthCheck(Type type, String path, int expectedResponseCode) {
  /** The metadata key of the service-wide check; add {@code .<cluster>} for one cluster. */
  public static final String SERVICE_KEY = "sluice.healthCheck";

  public static final HealthCheck TCP = new HealthCheck(Type.TCP, "", 200);

  static final int MAX_PATH_LENGTH = 1024;

  /** The kinds of check. */
  public enum Type {
    TCP,
    HTTP,
    NONE
  }

  public HealthCheck {
    path = path == null || path.isBlank() ? "/" : path;
  }

  /** The check that applies to a cluster of a service with the given metadata. */
  public static HealthCheck forCluster(Map<String, String> serviceMetadata, String cluster) {
    String value = serviceMetadata.get(clusterKey(cluster));
    if (value == null || value.isBlank()) {
      value = serviceMetadata.get(SERVICE_KEY);
    }
    if (value == null || value.isBlank()) {
      return TCP;
    }
    try {
      return parse(value);
    } catch (NamingException e) {
      // Validated when written; an unreadable value (older format) falls back to the default.
      return TCP;
    }
  }

  /** Whether a metadata key configures a health check (the service's or a cluster's). */
  public static boolean isHealthCheckKey(String key) {
    return key.equals(SERVICE_KEY) || key.startsWith(SERVICE_KEY + ".");
  }

  public static String clusterKey(String cluster) {
    return SERVICE_KEY + "." + cluster;
  }

  /** Checks every health-check key of service metadata; throws naming the first bad one. */
  public static void validate(Map<String, String> serviceMetadata) {
    for (Map.Entry<String, String> entry : serviceMetadata.entrySet()) {
      if (isHealthCheckKey(entry.getKey())) {
        if (!entry.getValue().isBlank()) {
          parse(entry.getValue());
        }
      }
    }
  }

  /**
   * Reads a {@code healthChecker} JSON object or a bare type name.
   *
   * @throws NamingException if it is neither, or names an unsupported type
   */
  public static HealthCheck parse(String value) {
    String trimmed = value.trim();
    if (!trimmed.startsWith("{")) {
      return new HealthCheck(type(trimmed), "/", 200);
    }
    JsonNode json;
    try {
      json = new ObjectMapper().readTree(trimmed);
    } catch (JsonProcessingException e) {
      throw NamingException.invalid("healthChecker is not valid JSON: " + e.getOriginalMessage());
    }
    if (!json.isObject() || !json.hasNonNull("type")) {
      throw NamingException.invalid("healthChecker must be a JSON object with a type");
    }
    Type type = type(json.get("type").asText());
    String path = json.hasNonNull("path") ? json.get("path").asText() : "/";
    if (path.length() > MAX_PATH_LENGTH || !(path.isEmpty() || path.startsWith("/"))) {
      throw NamingException.invalid(
          "healthChecker path must start with / and be at most " + MAX_PATH_LENGTH + " long");
    }
    int expected =
        json.hasNonNull("expectedResponseCode") ? json.get("expectedResponseCode").asInt(200) : 200;
    if (expected < 100 || expected > 599) {
      throw NamingException.invalid(
          "healthChecker expectedResponseCode must be an HTTP status, was " + expected);
    }
    return new HealthCheck(type, path, expected);
  }

  private static Type type(String name) {
    try {
      return Type.valueOf(name.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw NamingException.invalid(
          "unsupported healthChecker type '" + name + "': use TCP, HTTP or NONE");
    }
  }

  /** Nacos's {@code healthChecker} JSON for this check, as service details show it. */
  public Map<String, Object> toNacosJson() {
    return switch (type) {
      case TCP -> Map.of("type", "TCP");
      case NONE -> Map.of("type", "NONE");
      case HTTP ->
          Map.of(
              "type",
              "HTTP",
              "path",
              path,
              "headers",
              "",
              "expectedResponseCode",
              expectedResponseCode);
    };
  }
}
