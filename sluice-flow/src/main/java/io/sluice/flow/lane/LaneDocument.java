package io.sluice.flow.lane;

import io.sluice.flow.internal.json.JsonReader;
import io.sluice.flow.internal.json.MalformedJsonException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads a lane document (group {@code SLUICE}, dataId {@code lanes}) into {@link Lanes}. The
 * format, documented with examples in the agent's README:
 *
 * <pre>{@code
 * {"lanes": [
 *   {"name": "gray-users", "tag": "gray", "enabled": true, "match": "any",
 *    "conditions": [{"header": "x-user-id", "oneOf": ["42", "7"]},
 *                   {"cookie": "beta", "equals": "1"}]},
 *   {"name": "gray-half", "tag": "gray", "percentage": 50, "stickyOn": {"header": "x-user-id"}}
 * ]}
 * }</pre>
 *
 * <p>Strict: an unknown member, a wrong type, a bad regex, duplicate names, or shares adding up to
 * more than 100 % reject the whole document with a message naming the lane and the fault, so a typo
 * never silently changes what the lanes do. An empty or missing document means no lanes.
 */
public final class LaneDocument {
  /** A lane's tag: what instances carry in their metadata and requests in their headers. */
  static final Pattern TAG = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  private static final Set<String> LANE_MEMBERS =
      Set.of("name", "tag", "enabled", "match", "conditions", "percentage", "stickyOn");
  private static final Set<String> SOURCES = Set.of("header", "cookie", "query");
  private static final Set<String> OPERATORS = Set.of("equals", "oneOf", "prefix", "regex");

  private LaneDocument() {}

  /** Parses with per-request random draws from the calling thread's generator. */
  public static Lanes parse(String json) throws InvalidLanesException {
    return parse(json, Lanes.threadLocalRandomBuckets());
  }

  /**
   * Parses a document.
   *
   * @param randomBucket draws a bucket in [0, 10,000) for a request without a sticky value
   */
  public static Lanes parse(String json, IntSupplier randomBucket) throws InvalidLanesException {
    if (json == null || json.isBlank()) {
      return new Lanes(List.of(), randomBucket);
    }
    Object root;
    try {
      root = JsonReader.parse(json);
    } catch (MalformedJsonException e) {
      throw new InvalidLanesException("not JSON: " + e.getMessage());
    }
    if (!(root instanceof Map)) {
      throw new InvalidLanesException("expected an object {\"lanes\": [...]}");
    }
    Map<?, ?> object = (Map<?, ?>) root;
    for (Object key : object.keySet()) {
      if (!key.equals("lanes")) {
        throw new InvalidLanesException("unknown member '" + key + "' (expected only 'lanes')");
      }
    }
    Object array = object.get("lanes");
    if (array == null) {
      return new Lanes(List.of(), randomBucket);
    }
    if (!(array instanceof List)) {
      throw new InvalidLanesException("'lanes' must be an array");
    }
    List<Lane> lanes = new ArrayList<>();
    Set<String> names = new HashSet<>();
    int sliceStart = 0;
    List<?> items = (List<?>) array;
    for (int i = 0; i < items.size(); i++) {
      Lane lane = lane(items.get(i), "lanes[" + i + "]", sliceStart);
      if (!names.add(lane.name())) {
        throw new InvalidLanesException(
            "lanes[" + i + "]: the name '" + lane.name() + "' is used by an earlier lane");
      }
      if (lane.shareBuckets() > 0) {
        sliceStart += lane.shareBuckets();
        if (sliceStart > Lane.BUCKETS) {
          throw new InvalidLanesException(
              "lanes["
                  + i
                  + "] ("
                  + lane.name()
                  + "): the percentages of the lanes add up to "
                  + new BigDecimal(sliceStart).movePointLeft(2).stripTrailingZeros().toPlainString()
                  + " %, more than 100 %");
        }
      }
      lanes.add(lane);
    }
    return new Lanes(lanes, randomBucket);
  }

  private static Lane lane(Object item, String where, int sliceStart) throws InvalidLanesException {
    if (!(item instanceof Map)) {
      throw new InvalidLanesException(where + ": expected an object");
    }
    Map<?, ?> lane = (Map<?, ?>) item;
    String name = string(lane, "name", where, true);
    where = where + " (" + name + ")";
    for (Object key : lane.keySet()) {
      if (!LANE_MEMBERS.contains(key)) {
        throw new InvalidLanesException(
            where + ": unknown member '" + key + "' (known: " + sorted(LANE_MEMBERS) + ")");
      }
    }
    String tag = string(lane, "tag", where, true);
    if (!TAG.matcher(tag).matches()) {
      throw new InvalidLanesException(
          where
              + ": tag '"
              + tag
              + "' must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
    if (tag.equals("base")) {
      throw new InvalidLanesException(
          where + ": tag 'base' is reserved for untagged traffic; name the lane's own tag");
    }
    boolean enabled = true;
    Object enabledValue = lane.get("enabled");
    if (enabledValue != null) {
      if (!(enabledValue instanceof Boolean)) {
        throw new InvalidLanesException(where + ": 'enabled' must be true or false");
      }
      enabled = (Boolean) enabledValue;
    }
    boolean anyOf = false;
    String match = string(lane, "match", where, false);
    if (match != null) {
      if (match.equals("any")) {
        anyOf = true;
      } else if (!match.equals("all")) {
        throw new InvalidLanesException(
            where + ": 'match' must be \"all\" or \"any\", was \"" + match + "\"");
      }
    }
    List<Condition> conditions = new ArrayList<>();
    Object conditionsValue = lane.get("conditions");
    if (conditionsValue != null) {
      if (!(conditionsValue instanceof List)) {
        throw new InvalidLanesException(where + ": 'conditions' must be an array");
      }
      List<?> list = (List<?>) conditionsValue;
      for (int c = 0; c < list.size(); c++) {
        conditions.add(condition(list.get(c), where + " conditions[" + c + "]"));
      }
    }
    int share = -1;
    Object percentage = lane.get("percentage");
    if (percentage != null) {
      if (!(percentage instanceof BigDecimal)) {
        throw new InvalidLanesException(where + ": 'percentage' must be a number");
      }
      BigDecimal buckets = ((BigDecimal) percentage).movePointRight(2);
      if (buckets.signum() < 0
          || buckets.compareTo(BigDecimal.valueOf(Lane.BUCKETS)) > 0
          || buckets.stripTrailingZeros().scale() > 0) {
        throw new InvalidLanesException(
            where + ": 'percentage' must be between 0 and 100 in steps of 0.01, was " + percentage);
      }
      share = buckets.intValueExact();
    }
    RequestReader.Source stickySource = null;
    String stickyName = null;
    Object sticky = lane.get("stickyOn");
    if (sticky != null) {
      if (share < 0) {
        throw new InvalidLanesException(where + ": 'stickyOn' needs a 'percentage'");
      }
      if (!(sticky instanceof Map) || ((Map<?, ?>) sticky).size() != 1) {
        throw new InvalidLanesException(
            where
                + ": 'stickyOn' must be one of {\"header\": name}, {\"cookie\": name},"
                + " {\"query\": name}");
      }
      Map.Entry<?, ?> only = ((Map<?, ?>) sticky).entrySet().iterator().next();
      if (!SOURCES.contains(only.getKey()) || !(only.getValue() instanceof String)) {
        throw new InvalidLanesException(
            where
                + ": 'stickyOn' must be one of {\"header\": name}, {\"cookie\": name},"
                + " {\"query\": name}");
      }
      stickySource = source((String) only.getKey());
      stickyName = (String) only.getValue();
    }
    return new Lane(
        name, tag, enabled, conditions, anyOf, share, sliceStart, stickySource, stickyName);
  }

  private static Condition condition(Object item, String where) throws InvalidLanesException {
    if (!(item instanceof Map)) {
      throw new InvalidLanesException(where + ": expected an object");
    }
    Map<?, ?> condition = (Map<?, ?>) item;
    String sourceKey = null;
    String operatorKey = null;
    for (Object key : condition.keySet()) {
      if (SOURCES.contains(key)) {
        if (sourceKey != null) {
          throw new InvalidLanesException(
              where
                  + ": names both '"
                  + sourceKey
                  + "' and '"
                  + key
                  + "'; one condition, one value");
        }
        sourceKey = (String) key;
      } else if (OPERATORS.contains(key)) {
        if (operatorKey != null) {
          throw new InvalidLanesException(
              where + ": has both '" + operatorKey + "' and '" + key + "'; one operator each");
        }
        operatorKey = (String) key;
      } else {
        throw new InvalidLanesException(
            where
                + ": unknown member '"
                + key
                + "' (a condition is one of "
                + sorted(SOURCES)
                + " with one of "
                + sorted(OPERATORS)
                + ")");
      }
    }
    if (sourceKey == null) {
      throw new InvalidLanesException(where + ": needs one of " + sorted(SOURCES));
    }
    if (operatorKey == null) {
      throw new InvalidLanesException(where + ": needs one of " + sorted(OPERATORS));
    }
    Object name = condition.get(sourceKey);
    if (!(name instanceof String) || ((String) name).isEmpty()) {
      throw new InvalidLanesException(where + ": '" + sourceKey + "' must be a non-empty name");
    }
    Object operand = condition.get(operatorKey);
    List<String> values = new ArrayList<>();
    Condition.Operator operator;
    switch (operatorKey) {
      case "equals":
        operator = Condition.Operator.EQUALS;
        break;
      case "prefix":
        operator = Condition.Operator.PREFIX;
        break;
      case "regex":
        operator = Condition.Operator.REGEX;
        break;
      default:
        operator = Condition.Operator.ONE_OF;
    }
    if (operator == Condition.Operator.ONE_OF) {
      if (!(operand instanceof List) || ((List<?>) operand).isEmpty()) {
        throw new InvalidLanesException(where + ": 'oneOf' must be a non-empty array of strings");
      }
      for (Object each : (List<?>) operand) {
        if (!(each instanceof String)) {
          throw new InvalidLanesException(where + ": 'oneOf' must hold strings only");
        }
        values.add((String) each);
      }
    } else {
      if (!(operand instanceof String)) {
        throw new InvalidLanesException(where + ": '" + operatorKey + "' must be a string");
      }
      values.add((String) operand);
    }
    if (operator == Condition.Operator.REGEX) {
      try {
        Pattern.compile(values.get(0));
      } catch (PatternSyntaxException e) {
        throw new InvalidLanesException(
            where + ": 'regex' is not a valid regular expression: " + e.getDescription());
      }
    }
    String sourceName = (String) name;
    RequestReader.Source source = source(sourceKey);
    if (source == RequestReader.Source.HEADER) {
      sourceName = sourceName.toLowerCase(Locale.ROOT);
    }
    return new Condition(source, sourceName, operator, values);
  }

  private static RequestReader.Source source(String key) {
    return RequestReader.Source.valueOf(key.toUpperCase(Locale.ROOT));
  }

  private static String string(Map<?, ?> object, String member, String where, boolean required)
      throws InvalidLanesException {
    Object value = object.get(member);
    if (value == null) {
      if (required) {
        throw new InvalidLanesException(where + ": '" + member + "' is missing");
      }
      return null;
    }
    if (!(value instanceof String) || ((String) value).isBlank()) {
      throw new InvalidLanesException(where + ": '" + member + "' must be a non-empty string");
    }
    return (String) value;
  }

  private static List<String> sorted(Set<String> names) {
    List<String> list = new ArrayList<>(names);
    list.sort(null);
    return list;
  }
}
