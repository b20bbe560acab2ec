package io.sluice.server.naming.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.naming.Instance;
import io.sluice.server.naming.InstanceValidator;
import io.sluice.server.naming.NamingException;
import io.sluice.server.naming.ServiceKey;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.protocol.http.HttpParams;
import io.sluice.server.protocol.http.NacosErrorCode;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The naming API's reading of a request's parameters ({@link HttpParams}, decoded once for every
 * endpoint), as Nacos reads them: blank is absent; {@code serviceName} may be grouped ({@code
 * group@@name}) and then wins over {@code groupName}; {@code clusterName} falls back to {@code
 * cluster}, {@code enabled} to {@code enable}; {@code metadata} is a JSON object or the legacy
 * {@code k=v,k2=v2}. Anything malformed is an {@link HttpApiException} with status 400 and the v2
 * code Nacos gives it.
 */
final class NamingParams {
  private static final TypeReference<Map<String, String>> STRING_MAP = new TypeReference<>() {};

  private final HttpParams params;
  private final ObjectMapper json;

  NamingParams(HttpParams params, ObjectMapper json) {
    this.params = params;
    this.json = json;
  }

  /** A required parameter is absent, worded as Nacos's naming API words it. */
  static HttpApiException missing(String parameter) {
    return new HttpApiException(
        400, NacosErrorCode.PARAMETER_MISSING, "Param '" + parameter + "' is required.");
  }

  /** The value, or null when absent or blank. */
  String optional(String name) {
    String value = params.get(name);
    return value == null || value.isBlank() ? null : value.trim();
  }

  String optional(String name, String fallbackName) {
    String value = optional(name);
    return value != null ? value : optional(fallbackName);
  }

  String required(String name) {
    String value = optional(name);
    if (value == null) {
      throw missing(name);
    }
    return value;
  }

  String namespace() {
    String namespace = ServiceKey.canonicalNamespace(optional("namespaceId"));
    InstanceValidator.checkNamespace(namespace);
    return namespace;
  }

  ServiceKey service() {
    ServiceKey service =
        ServiceKey.parse(namespace(), optional("groupName"), required("serviceName"));
    try {
      InstanceValidator.checkService(service);
    } catch (NamingException e) {
      throw new HttpApiException(400, NacosErrorCode.SERVICE_NAME_ERROR, e.getMessage());
    }
    return service;
  }

  String ip() {
    String ip = required("ip");
    InstanceValidator.checkIp(ip);
    return ip;
  }

  int port() {
    return intValue("port", required("port"));
  }

  String cluster() {
    String cluster = optional("clusterName", "cluster");
    return cluster == null ? Instance.DEFAULT_CLUSTER : cluster;
  }

  Boolean bool(String name) {
    String value = optional(name);
    if (value == null) {
      return null;
    }
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "true", "on", "yes", "y", "t" -> true;
      case "false", "off", "no", "n", "f" -> false;
      default -> throw HttpApiException.invalid(name + " must be true or false, was " + value);
    };
  }

  boolean bool(String name, boolean fallback) {
    Boolean value = bool(name);
    return value == null ? fallback : value;
  }

  /** {@code enabled}, or the older {@code enable}. */
  Boolean enabled() {
    Boolean enabled = bool("enabled");
    return enabled != null ? enabled : bool("enable");
  }

  Double weight() {
    String value = optional("weight");
    if (value == null) {
      return null;
    }
    try {
      double weight = Double.parseDouble(value);
      if (Double.isNaN(weight) || weight < 0 || weight > 10_000) {
        throw new NumberFormatException();
      }
      return weight;
    } catch (NumberFormatException e) {
      throw new HttpApiException(
          400,
          NacosErrorCode.WEIGHT_ERROR,
          "instance format invalid: The weights range from 0.0 to 10000.0, was " + value);
    }
  }

  Float protectThreshold(boolean required) {
    String value = required ? required("protectThreshold") : optional("protectThreshold");
    if (value == null) {
      return null;
    }
    try {
      float threshold = Float.parseFloat(value);
      if (Float.isNaN(threshold) || threshold < 0 || threshold > 1) {
        throw new NumberFormatException();
      }
      return threshold;
    } catch (NumberFormatException e) {
      throw HttpApiException.invalid("protectThreshold must be between 0 and 1, was " + value);
    }
  }

  int intValue(String name, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw HttpApiException.invalid(name + " must be an integer, was " + value);
    }
  }

  /**
   * The {@code metadata} parameter: null when absent, else a JSON object of strings or the legacy
   * {@code k=v,k2=v2} form (what Nacos accepts), checked for size.
   */
  Map<String, String> metadata(NacosErrorCode errorCode) {
    String value = optional("metadata");
    if (value == null) {
      return null;
    }
    Map<String, String> metadata;
    try {
      metadata = parseMetadata(value);
      InstanceValidator.checkMetadata(metadata);
    } catch (NamingException e) {
      throw new HttpApiException(400, errorCode, e.getMessage());
    }
    return metadata;
  }

  private Map<String, String> parseMetadata(String value) {
    if (value.startsWith("{")) {
      try {
        Map<String, String> parsed = json.readValue(value, STRING_MAP);
        if (parsed.containsKey(null) || parsed.containsValue(null)) {
          throw NamingException.invalid("metadata keys and values must not be null");
        }
        return parsed;
      } catch (JsonProcessingException e) {
        throw NamingException.invalid(
            "metadata format incorrect, it must be a JSON object of strings: "
                + e.getOriginalMessage());
      }
    }
    Map<String, String> legacy = new LinkedHashMap<>();
    for (String pair : value.split(",")) {
      String[] kv = pair.split("=");
      if (kv.length != 2) {
        throw NamingException.invalid("metadata format incorrect: " + value);
      }
      legacy.put(kv[0], kv[1]);
    }
    return legacy;
  }

  /**
   * The {@code selector} parameter: null for none, else the JSON as given, whose type must be
   * {@code none} or {@code label} (kept and reported, not applied).
   */
  String selector() {
    String value = optional("selector");
    if (value == null) {
      return null;
    }
    String type;
    try {
      JsonNode selector = json.readTree(value);
      type =
          selector.isObject() && selector.hasNonNull("type") ? selector.get("type").asText() : "";
    } catch (JsonProcessingException e) {
      throw new HttpApiException(
          400, NacosErrorCode.SELECTOR_ERROR, "selector is not valid JSON: " + value);
    }
    return switch (type) {
      case "none" -> null;
      case "label" -> value;
      default ->
          throw new HttpApiException(
              400, NacosErrorCode.SELECTOR_ERROR, "not match any type of selector!");
    };
  }

  /** Paging numbers: positive, and a page of at most {@code maxPageSize}. */
  int page(String name, String fallback, int max) {
    String value = optional(name);
    if (value == null) {
      if (fallback == null) {
        throw missing(name);
      }
      value = fallback;
    }
    int number = intValue(name, value);
    if (number < 1 || number > max) {
      throw HttpApiException.invalid(name + " must be between 1 and " + max + ", was " + value);
    }
    return number;
  }
}
