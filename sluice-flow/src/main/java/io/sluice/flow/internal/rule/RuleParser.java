package io.sluice.flow.internal.rule;

import io.sluice.flow.InvalidRuleDocumentException;
import io.sluice.flow.ParamSource;
import io.sluice.flow.RuleKind;
import io.sluice.flow.internal.json.JsonReader;
import io.sluice.flow.internal.json.MalformedJsonException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads one Sentinel rule document (a JSON array of rule objects) into validated specs, or rejects
 * the whole document with a message naming the rule and the field. Field names and defaults are
 * Sentinel's; unknown fields (the dashboard adds {@code id}, {@code app}, {@code gmtCreate}...) are
 * ignored; fields of the wrong type or out of range are errors, where Sentinel would log and drop
 * the rule. Identical rules in one document count once, as in Sentinel.
 */
public final class RuleParser {

  /** A document may hold at most this many rules. */
  public static final int MAX_RULES = 100_000;

  private static final int MAX_STAT_INTERVAL_MS = 3_600_000;
  private static final int MAX_PROBE_CALLS = 1000;

  private RuleParser() {}

  /** Parses {@code json}; a blank document means no rules (a deleted config). */
  public static List<RuleSpec> parse(RuleKind kind, String json) {
    if (json == null || json.isBlank()) {
      return List.of();
    }
    Object root;
    try {
      root = JsonReader.parse(json);
    } catch (MalformedJsonException e) {
      throw new InvalidRuleDocumentException(kind, e.getMessage());
    }
    if (!(root instanceof List<?> items)) {
      throw new InvalidRuleDocumentException(
          kind, "the document must be a JSON array of rule objects");
    }
    if (items.size() > MAX_RULES) {
      throw new InvalidRuleDocumentException(
          kind, items.size() + " rules, more than the limit of " + MAX_RULES);
    }
    Set<RuleSpec> specs = new LinkedHashSet<>();
    for (int i = 0; i < items.size(); i++) {
      Object item = items.get(i);
      if (!(item instanceof Map<?, ?> map)) {
        throw new InvalidRuleDocumentException(kind, "rule #" + (i + 1) + " is not a JSON object");
      }
      @SuppressWarnings("unchecked")
      Fields fields = new Fields(kind, i + 1, (Map<String, Object>) map);
      specs.add(
          switch (kind) {
            case FLOW -> flow(fields);
            case DEGRADE -> degrade(fields);
            case PARAM_FLOW -> paramFlow(fields);
            case SYSTEM -> system(fields);
            case AUTHORITY -> authority(fields);
          });
    }
    return List.copyOf(specs);
  }

  private static FlowRuleSpec flow(Fields f) {
    String resource = f.resource();
    boolean regex = f.bool("regex", false);
    int grade = f.integer("grade", FlowRuleSpec.GRADE_QPS, 0, 1);
    double count = f.requiredNumber("count", 0, Double.MAX_VALUE);
    int strategy = f.integer("strategy", FlowRuleSpec.STRATEGY_DIRECT, 0, 2);
    String refResource = f.string("refResource", null);
    int behavior = f.integer("controlBehavior", FlowRuleSpec.BEHAVIOR_REJECT, 0, 3);
    double warmUp = f.number("warmUpPeriodSec", 10, 0, 86_400);
    long maxQueueing = (long) f.number("maxQueueingTimeMs", 500, 0, 3_600_000);
    double coldFactor = f.number("coldFactor", 3, 1, 1_000_000);
    boolean clusterMode = f.bool("clusterMode", false);
    OriginScope origins = OriginScope.parse(f.string("limitApp", "default"));

    if (regex) {
      try {
        Pattern.compile(resource);
      } catch (PatternSyntaxException e) {
        throw f.error("\"resource\" is not a valid regular expression: " + e.getDescription());
      }
    }
    if (strategy != FlowRuleSpec.STRATEGY_DIRECT) {
      if (refResource == null || refResource.isBlank()) {
        throw f.error("\"refResource\" is required for the RELATE and CHAIN strategies");
      }
    } else {
      refResource = null;
    }
    if (grade == FlowRuleSpec.GRADE_THREAD) {
      if (strategy == FlowRuleSpec.STRATEGY_CHAIN) {
        throw f.error("THREAD grade with the CHAIN strategy is not supported");
      }
      if (origins.kind() != OriginScope.Kind.DEFAULT) {
        throw f.error(
            "THREAD grade with limitApp \"" + origins + "\" is not supported (only \"default\")");
      }
      behavior = FlowRuleSpec.BEHAVIOR_REJECT;
    }
    boolean warm =
        behavior == FlowRuleSpec.BEHAVIOR_WARM_UP
            || behavior == FlowRuleSpec.BEHAVIOR_WARM_UP_PACING;
    boolean pacing =
        behavior == FlowRuleSpec.BEHAVIOR_PACING
            || behavior == FlowRuleSpec.BEHAVIOR_WARM_UP_PACING;
    if (warm && warmUp <= 0) {
      throw f.error("\"warmUpPeriodSec\" must be > 0 for a warm-up behaviour");
    }
    if (warm && coldFactor <= 1) {
      throw f.error("\"coldFactor\" must be > 1");
    }
    if (strategy == FlowRuleSpec.STRATEGY_RELATE && behavior != FlowRuleSpec.BEHAVIOR_REJECT) {
      throw f.error("RELATE with a warm-up or rate-limiter behaviour is not supported");
    }
    if (regex && behavior != FlowRuleSpec.BEHAVIOR_REJECT) {
      throw f.error("a regex rule must use controlBehavior 0, as in Sentinel");
    }
    return new FlowRuleSpec(
        resource,
        regex,
        origins,
        grade,
        count,
        strategy,
        refResource,
        behavior,
        warm ? warmUp : 0,
        pacing ? maxQueueing : 0,
        warm ? coldFactor : 0,
        clusterMode);
  }

  private static DegradeRuleSpec degrade(Fields f) {
    String resource = f.resource();
    int grade = f.integer("grade", DegradeRuleSpec.GRADE_SLOW_RATIO, 0, 2);
    double count =
        f.requiredNumber(
            "count", 0, grade == DegradeRuleSpec.GRADE_ERROR_RATIO ? 1 : Double.MAX_VALUE);
    double slowRatio = f.number("slowRatioThreshold", 1.0, 0, 1);
    double timeWindow = f.requiredNumber("timeWindow", Double.MIN_VALUE, 31_536_000);
    int minRequest = f.integer("minRequestAmount", 5, 1, Integer.MAX_VALUE);
    int statInterval = f.integer("statIntervalMs", 1000, 1, MAX_STAT_INTERVAL_MS);
    int probes = f.integer("probeCalls", 1, 1, MAX_PROBE_CALLS);
    long openMillis = Math.max(1, Math.round(timeWindow * 1000));
    return new DegradeRuleSpec(
        resource,
        grade,
        count,
        grade == DegradeRuleSpec.GRADE_SLOW_RATIO ? slowRatio : 0,
        openMillis,
        minRequest,
        statInterval,
        probes);
  }

  private static ParamFlowRuleSpec paramFlow(Fields f) {
    String resource = f.resource();
    int grade = f.integer("grade", 1, 0, 1);
    if (grade == 0) {
      throw f.error("THREAD grade hot-parameter rules are not supported");
    }
    Integer paramIdx = f.optionalInteger("paramIdx", -1_000_000, 1_000_000);
    ParamSource source = paramSource(f);
    if (paramIdx == null && source == null) {
      throw f.error("\"paramIdx\" is required (or Sluice's \"paramSource\")");
    }
    double count = f.requiredNumber("count", 0, Long.MAX_VALUE);
    int behavior = f.integer("controlBehavior", 0, 0, 3);
    if (behavior != FlowRuleSpec.BEHAVIOR_REJECT && behavior != FlowRuleSpec.BEHAVIOR_PACING) {
      throw f.error("\"controlBehavior\" must be 0 (reject) or 2 (rate limiter) for a param rule");
    }
    long maxQueueing = (long) f.number("maxQueueingTimeMs", 0, 0, 3_600_000);
    long burst = f.integer("burstCount", 0, 0, Integer.MAX_VALUE);
    long duration = f.integer("durationInSec", 1, 1, 86_400);
    Map<Object, Long> exceptions = new HashMap<>();
    List<Object> items = f.list("paramFlowItemList");
    for (int i = 0; i < items.size(); i++) {
      if (!(items.get(i) instanceof Map<?, ?> item)) {
        throw f.error("paramFlowItemList[" + i + "] is not an object");
      }
      Object object = item.get("object");
      if (!(object instanceof String text)) {
        throw f.error("paramFlowItemList[" + i + "].object must be a string");
      }
      Object classType = item.get("classType");
      if (classType != null && classType != JsonReader.NULL && !(classType instanceof String)) {
        throw f.error("paramFlowItemList[" + i + "].classType must be a string");
      }
      Object itemCount = item.get("count");
      if (!(itemCount instanceof BigDecimal n) || n.signum() < 0 || !isIntegral(n)) {
        throw f.error("paramFlowItemList[" + i + "].count must be an integer >= 0");
      }
      Object value;
      try {
        value = typedValue(text, classType instanceof String s ? s : null);
      } catch (IllegalArgumentException e) {
        throw f.error("paramFlowItemList[" + i + "].object \"" + text + "\" is not a " + classType);
      }
      exceptions.put(value, n.longValue());
    }
    return new ParamFlowRuleSpec(
        resource,
        source == null ? paramIdx : 0,
        source,
        count,
        behavior,
        behavior == FlowRuleSpec.BEHAVIOR_PACING ? maxQueueing : 0,
        burst,
        duration,
        Map.copyOf(exceptions));
  }

  /**
   * Sluice's {@code paramSource}: {@code {"header": name}}, {@code {"query": name}} or {@code
   * {"cookie": name}}, exactly one; null when absent.
   */
  private static ParamSource paramSource(Fields f) {
    Object value = f.raw("paramSource");
    if (value == null) {
      return null;
    }
    if (!(value instanceof Map<?, ?> map) || map.size() != 1) {
      throw f.error(
          "\"paramSource\" must be an object with one member: header, query or cookie,"
              + " e.g. {\"header\": \"x-user-id\"}");
    }
    Map.Entry<?, ?> member = map.entrySet().iterator().next();
    ParamSource.Kind kind = null;
    for (ParamSource.Kind candidate : ParamSource.Kind.values()) {
      if (candidate.jsonName().equals(member.getKey())) {
        kind = candidate;
      }
    }
    if (kind == null) {
      throw f.error(
          "\"paramSource\" has unknown member \""
              + member.getKey()
              + "\"; use header, query or cookie");
    }
    if (!(member.getValue() instanceof String name) || name.isBlank()) {
      throw f.error("\"paramSource\"." + kind.jsonName() + " must be a non-empty string");
    }
    return new ParamSource(kind, name.trim());
  }

  /** Converts an item's text to the argument type Sentinel's {@code classType} names. */
  static Object typedValue(String text, String classType) {
    if (classType == null || classType.isBlank()) {
      return text;
    }
    return switch (classType) {
      case "int", "java.lang.Integer" -> Integer.parseInt(text.trim());
      case "long", "java.lang.Long" -> Long.parseLong(text.trim());
      case "short", "java.lang.Short" -> Short.parseShort(text.trim());
      case "byte", "java.lang.Byte" -> Byte.parseByte(text.trim());
      case "double", "java.lang.Double" -> Double.parseDouble(text.trim());
      case "float", "java.lang.Float" -> Float.parseFloat(text.trim());
      case "boolean", "java.lang.Boolean" -> Boolean.parseBoolean(text.trim());
      case "char", "java.lang.Character" -> {
        if (text.isEmpty()) {
          throw new IllegalArgumentException("empty char");
        }
        yield text.charAt(0);
      }
      default -> text;
    };
  }

  private static SystemRuleSpec system(Fields f) {
    double load = f.number("highestSystemLoad", -1, -Double.MAX_VALUE, Double.MAX_VALUE);
    double cpu = f.number("highestCpuUsage", -1, -Double.MAX_VALUE, Double.MAX_VALUE);
    if (cpu > 1) {
      throw f.error("\"highestCpuUsage\" must be a ratio in [0, 1] (or negative for off)");
    }
    double qps = f.number("qps", -1, -Double.MAX_VALUE, Double.MAX_VALUE);
    double avgRt = f.number("avgRt", -1, -Double.MAX_VALUE, Double.MAX_VALUE);
    double maxThread = f.number("maxThread", -1, -Double.MAX_VALUE, Double.MAX_VALUE);
    return new SystemRuleSpec(
        load < 0 ? -1 : load,
        cpu < 0 ? -1 : cpu,
        qps < 0 ? -1 : qps,
        avgRt < 0 ? -1 : avgRt,
        maxThread < 0 ? -1 : (long) Math.floor(maxThread));
  }

  private static AuthorityRuleSpec authority(Fields f) {
    String resource = f.resource();
    String limitApp = f.string("limitApp", null);
    if (limitApp == null || limitApp.isBlank()) {
      throw f.error("\"limitApp\" must list at least one origin");
    }
    Set<String> origins = new java.util.TreeSet<>();
    for (String name : limitApp.split(",")) {
      if (!name.isBlank()) {
        origins.add(name.trim());
      }
    }
    int strategy = f.integer("strategy", 0, 0, 1);
    return new AuthorityRuleSpec(resource, Set.copyOf(origins), strategy == 0);
  }

  private static boolean isIntegral(BigDecimal n) {
    return n.signum() == 0 || n.scale() <= 0 || n.stripTrailingZeros().scale() <= 0;
  }

  /** Typed access to one rule object's fields, with errors that name the rule and field. */
  private static final class Fields {
    private final RuleKind kind;
    private final int index;
    private final Map<String, Object> map;

    Fields(RuleKind kind, int index, Map<String, Object> map) {
      this.kind = kind;
      this.index = index;
      this.map = map;
    }

    private Object get(String name) {
      Object value = map.get(name);
      return value == JsonReader.NULL ? null : value;
    }

    /** The field's JSON value (a map, list, string, number...), or null when absent. */
    Object raw(String name) {
      return get(name);
    }

    String resource() {
      String resource = string("resource", null);
      if (resource == null || resource.isBlank()) {
        throw error("\"resource\" is required");
      }
      return resource;
    }

    String string(String name, String fallback) {
      Object value = get(name);
      if (value == null) {
        return fallback;
      }
      if (!(value instanceof String s)) {
        throw error("\"" + name + "\" must be a string, got " + show(value));
      }
      return s;
    }

    boolean bool(String name, boolean fallback) {
      Object value = get(name);
      if (value == null) {
        return fallback;
      }
      if (!(value instanceof Boolean b)) {
        throw error("\"" + name + "\" must be true or false, got " + show(value));
      }
      return b;
    }

    double requiredNumber(String name, double min, double max) {
      if (get(name) == null) {
        throw error("\"" + name + "\" is required");
      }
      return number(name, 0, min, max);
    }

    double number(String name, double fallback, double min, double max) {
      Object value = get(name);
      if (value == null) {
        return fallback;
      }
      if (!(value instanceof BigDecimal n)) {
        throw error("\"" + name + "\" must be a number, got " + show(value));
      }
      double d = n.doubleValue();
      if (Double.isInfinite(d) || d < min || d > max) {
        throw error("\"" + name + "\" must be in " + range(min, max) + ", got " + n);
      }
      return d;
    }

    int integer(String name, int fallback, int min, int max) {
      Integer value = optionalInteger(name, min, max);
      return value == null ? fallback : value;
    }

    Integer optionalInteger(String name, int min, int max) {
      Object value = get(name);
      if (value == null) {
        return null;
      }
      if (!(value instanceof BigDecimal n) || !isIntegral(n)) {
        throw error("\"" + name + "\" must be an integer, got " + show(value));
      }
      if (n.compareTo(BigDecimal.valueOf(min)) < 0 || n.compareTo(BigDecimal.valueOf(max)) > 0) {
        throw error("\"" + name + "\" must be in " + range(min, max) + ", got " + n);
      }
      return n.intValue();
    }

    List<Object> list(String name) {
      Object value = get(name);
      if (value == null) {
        return List.of();
      }
      if (!(value instanceof List<?> list)) {
        throw error("\"" + name + "\" must be an array, got " + show(value));
      }
      return new ArrayList<>(list);
    }

    InvalidRuleDocumentException error(String message) {
      Object resource = map.get("resource");
      String which = resource instanceof String s ? " (resource \"" + s + "\")" : "";
      return new InvalidRuleDocumentException(kind, "rule #" + index + which + ": " + message);
    }

    private static String range(double min, double max) {
      String lo = min == -Double.MAX_VALUE ? "(-inf" : "[" + format(min);
      String hi = max >= Long.MAX_VALUE ? "+inf)" : format(max) + "]";
      return lo + ", " + hi;
    }

    private static String format(double d) {
      if (d == Double.MIN_VALUE) {
        return "0 (exclusive)";
      }
      return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    private static String show(Object value) {
      if (value instanceof String s) {
        return "\"" + s + "\"";
      }
      if (value instanceof Map) {
        return "an object";
      }
      if (value instanceof List) {
        return "an array";
      }
      return String.valueOf(value);
    }
  }
}
