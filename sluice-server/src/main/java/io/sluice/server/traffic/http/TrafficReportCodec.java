package io.sluice.server.traffic.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.traffic.ResourceSecond;
import io.sluice.server.traffic.TrafficReport;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads an agent's report, checking every field: a report that is not what the agent sends is
 * refused whole with a message naming the field, and nothing of it is stored.
 *
 * <pre>{@code
 * {"app":"orders","instance":"4242@host","lane":"gray","sentAt":1733000000123,"dropped":0,
 *  "seen":[{"name":"GET /orders/{id}","kind":"Spring MVC route"}],
 *  "seconds":[{"t":1733000000000,"resources":[
 *     {"name":"GET /orders/{id}","pass":10,"block":2,"failed":0,"rt":850,"p50":700,"p99":2100,
 *      "concurrency":1}]}]}
 * }</pre>
 */
final class TrafficReportCodec {
  static final int MAX_NAME_CHARS = 512;
  static final int MAX_ID_CHARS = 256;
  static final int MAX_SECONDS = 30;
  static final int MAX_RESOURCES = 2_000;

  private final ObjectMapper json;

  TrafficReportCodec(ObjectMapper json) {
    this.json = json;
  }

  TrafficReport read(String body) {
    JsonNode root;
    try {
      root = json.readTree(body);
    } catch (JsonProcessingException e) {
      throw HttpApiException.invalid("report is not JSON: " + e.getOriginalMessage());
    }
    if (root == null || !root.isObject()) {
      throw HttpApiException.invalid("report must be a JSON object");
    }
    String app = text(root, "app", MAX_ID_CHARS, true);
    String instance = text(root, "instance", MAX_ID_CHARS, true);
    String lane = text(root, "lane", MAX_ID_CHARS, false);
    List<TrafficReport.SeenResource> seen = new ArrayList<>();
    for (JsonNode r : array(root, "seen", MAX_RESOURCES)) {
      seen.add(
          new TrafficReport.SeenResource(
              text(r, "name", MAX_NAME_CHARS, true), text(r, "kind", MAX_NAME_CHARS, false)));
    }
    List<TrafficReport.Second> seconds = new ArrayList<>();
    for (JsonNode s : array(root, "seconds", MAX_SECONDS)) {
      List<ResourceSecond> resources = new ArrayList<>();
      for (JsonNode r : array(s, "resources", MAX_RESOURCES)) {
        resources.add(
            new ResourceSecond(
                text(r, "name", MAX_NAME_CHARS, true),
                count(r, "pass"),
                count(r, "block"),
                count(r, "failed"),
                micros(r, "rt"),
                micros(r, "p50"),
                micros(r, "p99"),
                count(r, "concurrency")));
      }
      seconds.add(new TrafficReport.Second(number(s, "t"), resources));
    }
    return new TrafficReport(
        app,
        instance,
        lane == null || lane.isEmpty() ? null : lane,
        seen,
        seconds,
        root.has("dropped") ? count(root, "dropped") : 0,
        number(root, "sentAt"));
  }

  private static String text(JsonNode node, String field, int maxChars, boolean required) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      if (required) {
        throw HttpApiException.invalid("report: '" + field + "' is required");
      }
      return null;
    }
    if (!value.isTextual()) {
      throw HttpApiException.invalid("report: '" + field + "' must be a string");
    }
    String s = value.asText();
    if (required && s.isBlank()) {
      throw HttpApiException.invalid("report: '" + field + "' must not be blank");
    }
    if (s.length() > maxChars) {
      throw HttpApiException.invalid(
          "report: '" + field + "' is longer than " + maxChars + " characters");
    }
    return s;
  }

  private static List<JsonNode> array(JsonNode node, String field, int max) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return List.of();
    }
    if (!value.isArray()) {
      throw HttpApiException.invalid("report: '" + field + "' must be an array");
    }
    if (value.size() > max) {
      throw HttpApiException.invalid(
          "report: '" + field + "' has " + value.size() + " entries, more than " + max);
    }
    List<JsonNode> out = new ArrayList<>(value.size());
    for (JsonNode element : value) {
      if (!element.isObject()) {
        throw HttpApiException.invalid("report: each of '" + field + "' must be an object");
      }
      out.add(element);
    }
    return out;
  }

  private static long number(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
      throw HttpApiException.invalid("report: '" + field + "' must be an integer");
    }
    return value.asLong();
  }

  private static int count(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null) {
      return 0;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt() || value.asInt() < 0) {
      throw HttpApiException.invalid("report: '" + field + "' must be a non-negative integer");
    }
    return value.asInt();
  }

  /** A response time in µs, -1 when nothing was timed (absent or negative). */
  private static int micros(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return -1;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      throw HttpApiException.invalid("report: '" + field + "' must be an integer (µs)");
    }
    return Math.max(-1, value.asInt());
  }
}
