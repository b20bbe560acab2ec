package io.sluice.agent.governance;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.flow.RuleKind;
import io.sluice.flow.internal.json.JsonReader;
import io.sluice.flow.internal.json.MalformedJsonException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The fallback document of an application (group {@code SLUICE}, dataId {@code {app}-fallbacks}):
 * per resource, what a refused call gets instead of the default answer. Inbound (routes, gateway
 * routes), the status, headers and body the refused request is answered with; outbound (client
 * calls), by default the client's exception as before, or with {@code "outbound": "response"} a
 * synthetic response made of the same parts. The format, documented in the agent's README:
 *
 * <pre>{@code
 * {"fallbacks": [
 *   {"resource": "GET /orders/{id}", "status": 200, "contentType": "application/json",
 *    "headers": {"x-degraded": "true"}, "body": "{\"order\": null}"},
 *   {"resource": "GET stock/items/{id}", "blockedBy": ["degrade"], "outbound": "response",
 *    "status": 200, "body": "[]"}
 * ]}
 * }</pre>
 *
 * <p>Strict like the lane document: an unknown member, a wrong type, a status outside 100-599, a
 * body over 64 KiB or two fallbacks for the same resource and kind reject the whole document with a
 * message naming the entry; the last good fallbacks stay. Verdicts are built here, once, so a
 * refusal only looks one up. Immutable.
 */
final class Fallbacks {
  static final Fallbacks NONE = new Fallbacks(Map.of(), List.of());
  static final int MAX_BODY_BYTES = 64 * 1024;
  static final int MAX_ENTRIES = 10_000;

  private static final Set<String> MEMBERS =
      Set.of("resource", "blockedBy", "status", "headers", "contentType", "body", "outbound");
  private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
  private static final RuleKind[] KINDS = RuleKind.values();

  private final Map<String, BlockVerdict[]> byResource;
  private final List<String> descriptions;

  private Fallbacks(Map<String, BlockVerdict[]> byResource, List<String> descriptions) {
    this.byResource = byResource;
    this.descriptions = descriptions;
  }

  /** The fallback for {@code resource} refused by a rule of {@code kind}, or null. */
  BlockVerdict verdict(String resource, RuleKind kind) {
    BlockVerdict[] verdicts = byResource.get(resource);
    return verdicts == null || kind == null ? null : verdicts[kind.ordinal()];
  }

  /** The resources that have a fallback. */
  Set<String> resources() {
    return byResource.keySet();
  }

  /** One line per entry, for the log. */
  List<String> descriptions() {
    return descriptions;
  }

  static Fallbacks parse(String json) throws InvalidFallbacksException {
    if (json == null || json.isBlank()) {
      return NONE;
    }
    Object root;
    try {
      root = JsonReader.parse(json);
    } catch (MalformedJsonException e) {
      throw new InvalidFallbacksException("not JSON: " + e.getMessage());
    }
    if (!(root instanceof Map<?, ?> object)) {
      throw new InvalidFallbacksException("expected an object {\"fallbacks\": [...]}");
    }
    for (Object key : object.keySet()) {
      if (!key.equals("fallbacks")) {
        throw new InvalidFallbacksException(
            "unknown member '" + key + "' (expected only 'fallbacks')");
      }
    }
    Object array = object.get("fallbacks");
    if (array == null || array == JsonReader.NULL) {
      return NONE;
    }
    if (!(array instanceof List<?> items)) {
      throw new InvalidFallbacksException("'fallbacks' must be an array");
    }
    if (items.size() > MAX_ENTRIES) {
      throw new InvalidFallbacksException(
          items.size() + " fallbacks, more than the limit of " + MAX_ENTRIES);
    }
    Map<String, BlockVerdict[]> byResource = new HashMap<>();
    List<String> descriptions = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      entry(items.get(i), "fallbacks[" + i + "]", byResource, descriptions);
    }
    return new Fallbacks(Map.copyOf(byResource), List.copyOf(descriptions));
  }

  private static void entry(
      Object item, String where, Map<String, BlockVerdict[]> byResource, List<String> out)
      throws InvalidFallbacksException {
    if (!(item instanceof Map<?, ?> entry)) {
      throw new InvalidFallbacksException(where + ": expected an object");
    }
    String resource = string(entry, "resource", where);
    if (resource == null || resource.isBlank()) {
      throw new InvalidFallbacksException(where + ": 'resource' is required");
    }
    where = where + " (" + resource + ")";
    for (Object key : entry.keySet()) {
      if (!MEMBERS.contains(key)) {
        throw new InvalidFallbacksException(
            where + ": unknown member '" + key + "' (known: " + new TreeSet<>(MEMBERS) + ")");
      }
    }
    Object statusValue = entry.get("status");
    if (!(statusValue instanceof BigDecimal number)) {
      throw new InvalidFallbacksException(where + ": 'status' is required, a number in 100-599");
    }
    int status;
    try {
      status = number.intValueExact();
    } catch (ArithmeticException e) {
      status = -1;
    }
    if (status < 100 || status > 599) {
      throw new InvalidFallbacksException(
          where + ": 'status' must be an integer in 100-599, was " + number);
    }
    String body = string(entry, "body", where);
    byte[] bodyBytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    if (bodyBytes.length > MAX_BODY_BYTES) {
      throw new InvalidFallbacksException(
          where + ": 'body' is " + bodyBytes.length + " bytes, more than " + MAX_BODY_BYTES);
    }
    String contentType = string(entry, "contentType", where);
    if (contentType == null && bodyBytes.length > 0) {
      contentType = "text/plain;charset=UTF-8";
    }
    String[] headers = headers(entry.get("headers"), where);
    String outbound = string(entry, "outbound", where);
    boolean respond;
    if (outbound == null || outbound.equals("exception")) {
      respond = false;
    } else if (outbound.equals("response")) {
      respond = true;
    } else {
      throw new InvalidFallbacksException(
          where + ": 'outbound' must be \"exception\" or \"response\", was \"" + outbound + "\"");
    }
    List<RuleKind> kinds = kinds(entry.get("blockedBy"), where);
    BlockVerdict[] verdicts =
        byResource.computeIfAbsent(resource, r -> new BlockVerdict[KINDS.length]);
    for (RuleKind kind : kinds) {
      if (verdicts[kind.ordinal()] != null) {
        throw new InvalidFallbacksException(
            where
                + ": a fallback for "
                + reason(kind)
                + " refusals of this resource comes earlier");
      }
      verdicts[kind.ordinal()] =
          BlockVerdict.fallback(reason(kind), status, headers, contentType, bodyBytes, respond);
    }
    out.add(
        resource
            + " when refused by "
            + (kinds.size() == KINDS.length ? "any rule" : reasons(kinds))
            + ": "
            + status
            + (contentType == null ? "" : " " + contentType)
            + ", "
            + bodyBytes.length
            + " bytes"
            + (headers.length > 0 ? ", " + headers.length / 2 + " headers" : "")
            + (respond ? "; outbound calls get it as a synthetic response" : ""));
  }

  private static String[] headers(Object value, String where) throws InvalidFallbacksException {
    if (value == null || value == JsonReader.NULL) {
      return new String[0];
    }
    if (!(value instanceof Map<?, ?> map)) {
      throw new InvalidFallbacksException(where + ": 'headers' must be an object of strings");
    }
    List<String> pairs = new ArrayList<>();
    for (Map.Entry<?, ?> header : map.entrySet()) {
      String name = (String) header.getKey();
      if (!HEADER_NAME.matcher(name).matches()) {
        throw new InvalidFallbacksException(where + ": '" + name + "' is not a header name");
      }
      if (name.equalsIgnoreCase("content-type") || name.equalsIgnoreCase("content-length")) {
        throw new InvalidFallbacksException(
            where + ": set '" + name + "' through 'contentType' and 'body', not 'headers'");
      }
      if (!(header.getValue() instanceof String headerValue)
          || headerValue.indexOf('\r') >= 0
          || headerValue.indexOf('\n') >= 0) {
        throw new InvalidFallbacksException(
            where + ": header '" + name + "' must be a one-line string");
      }
      pairs.add(name);
      pairs.add(headerValue);
    }
    return pairs.toArray(new String[0]);
  }

  private static List<RuleKind> kinds(Object value, String where) throws InvalidFallbacksException {
    if (value == null || value == JsonReader.NULL) {
      return List.of(KINDS);
    }
    if (!(value instanceof List<?> names) || names.isEmpty()) {
      throw new InvalidFallbacksException(
          where + ": 'blockedBy' must be a non-empty array of " + allReasons());
    }
    List<RuleKind> kinds = new ArrayList<>();
    for (Object name : names) {
      RuleKind kind = null;
      for (RuleKind candidate : KINDS) {
        if (reason(candidate).equals(name)) {
          kind = candidate;
        }
      }
      if (kind == null) {
        throw new InvalidFallbacksException(
            where + ": unknown 'blockedBy' value " + name + " (known: " + allReasons() + ")");
      }
      if (!kinds.contains(kind)) {
        kinds.add(kind);
      }
    }
    return kinds;
  }

  /** The name of a kind of refusal, as verdicts and fallback documents spell it. */
  static String reason(RuleKind kind) {
    return kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  private static String reasons(List<RuleKind> kinds) {
    List<String> names = new ArrayList<>();
    kinds.forEach(kind -> names.add(reason(kind)));
    return String.join(", ", names);
  }

  private static String allReasons() {
    return reasons(List.of(KINDS));
  }

  private static String string(Map<?, ?> entry, String member, String where)
      throws InvalidFallbacksException {
    Object value = entry.get(member);
    if (value == null || value == JsonReader.NULL) {
      return null;
    }
    if (!(value instanceof String text)) {
      throw new InvalidFallbacksException(where + ": '" + member + "' must be a string");
    }
    return text;
  }

  /** A fallback document that could not be used; the message names the entry and the fault. */
  static final class InvalidFallbacksException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidFallbacksException(String message) {
      super(message);
    }
  }
}
