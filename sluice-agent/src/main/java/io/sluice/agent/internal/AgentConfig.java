package io.sluice.agent.internal;

import io.sluice.agent.rules.ConfigCredentials;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The agent's settings, resolved once at start from three sources in order of precedence: the agent
 * arguments ({@code -javaagent:sluice-agent.jar=server.addr=h:8848,app.name=orders}), system
 * properties ({@code -Dsluice.server.addr=...}) and environment variables ({@code
 * SLUICE_SERVER_ADDR=...}). A key {@code a.b-c} is {@code sluice.a.b-c} as a property and {@code
 * SLUICE_A_B_C} in the environment. Immutable.
 *
 * <p>In the agent arguments, pairs are separated by commas; a piece without {@code =} continues the
 * previous value, so {@code server.addr=a:8848,b:8848,app.name=x} lists two servers.
 */
public final class AgentConfig {
  public static final String SERVER_ADDR = "server.addr";
  public static final String NAMESPACE = "namespace";
  public static final String APP_NAME = "app.name";
  public static final String LANE = "lane";
  public static final String LOG_LEVEL = "log.level";
  public static final String LOG_DIR = "log.dir";
  public static final String CACHE_DIR = "cache.dir";
  public static final String FLOW_BLOCK_STATUS = "flow.block.status";
  public static final String DEGRADE_BLOCK_STATUS = "degrade.block.status";
  public static final String RETRY_AFTER_SECONDS = "retry.after.seconds";
  public static final String ENABLED = "enabled";
  public static final String DISABLED_INSTRUMENTATIONS = "instrumentation.disabled";
  public static final String ENABLED_INSTRUMENTATIONS = "instrumentation.enabled";
  public static final String LISTEN_HOLD_MS = "listen.hold.ms";
  public static final String WEAVE_CACHE = "weave.cache";
  public static final String TRAFFIC_REPORT = "traffic.report";
  public static final String TRAFFIC_ALL_RESOURCES = "traffic.all-resources";
  public static final String TRAFFIC_REPORT_SECONDS = "traffic.report.seconds";
  public static final String METRICS_PORT = "metrics.port";
  public static final String USERNAME = "username";
  public static final String PASSWORD = "password";
  public static final String ACCESS_TOKEN = "access.token";

  public static final int DEFAULT_FLOW_BLOCK_STATUS = 429;
  public static final int DEFAULT_DEGRADE_BLOCK_STATUS = 503;
  public static final int DEFAULT_RETRY_AFTER_SECONDS = 1;
  public static final long DEFAULT_LISTEN_HOLD_MS = 30_000;
  public static final int DEFAULT_TRAFFIC_REPORT_SECONDS = 5;

  private static final List<String> KEYS =
      List.of(
          SERVER_ADDR,
          NAMESPACE,
          APP_NAME,
          LANE,
          LOG_LEVEL,
          LOG_DIR,
          CACHE_DIR,
          FLOW_BLOCK_STATUS,
          DEGRADE_BLOCK_STATUS,
          RETRY_AFTER_SECONDS,
          ENABLED,
          DISABLED_INSTRUMENTATIONS,
          ENABLED_INSTRUMENTATIONS,
          LISTEN_HOLD_MS,
          WEAVE_CACHE,
          TRAFFIC_REPORT,
          TRAFFIC_ALL_RESOURCES,
          TRAFFIC_REPORT_SECONDS,
          METRICS_PORT,
          USERNAME,
          PASSWORD,
          ACCESS_TOKEN);

  private static final java.util.regex.Pattern LANE_TAG =
      java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  private final Map<String, String> values;
  private final Map<String, String> sources;

  private AgentConfig(Map<String, String> values, Map<String, String> sources) {
    this.values = Collections.unmodifiableMap(values);
    this.sources = Collections.unmodifiableMap(sources);
  }

  /** Resolves the settings from the agent arguments, system properties and environment. */
  public static AgentConfig resolve(
      String agentArgs, Map<String, String> systemProperties, Map<String, String> environment) {
    Map<String, String> fromArgs = parseAgentArgs(agentArgs);
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, String> sources = new LinkedHashMap<>();
    for (String key : KEYS) {
      String value = fromArgs.get(key);
      String source = "agent argument " + key;
      if (isBlank(value)) {
        value = systemProperties.get("sluice." + key);
        source = "-Dsluice." + key;
      }
      if (isBlank(value)) {
        value = environment.get(environmentName(key));
        source = environmentName(key);
      }
      if (!isBlank(value)) {
        values.put(key, value.trim());
        sources.put(key, source);
      }
    }
    for (String key : fromArgs.keySet()) {
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException("unknown agent argument '" + key + "'; known: " + KEYS);
      }
    }
    if ("base".equals(values.get(LANE))) {
      values.remove(LANE); // "base" is no lane
    }
    String lane = values.get(LANE);
    if (lane != null && !LANE_TAG.matcher(lane).matches()) {
      throw new IllegalArgumentException(
          "lane '"
              + lane
              + "' (from "
              + sources.get(LANE)
              + ") must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
    if (values.containsKey(USERNAME) != values.containsKey(PASSWORD)) {
      String set = values.containsKey(USERNAME) ? USERNAME : PASSWORD;
      String missing = set.equals(USERNAME) ? PASSWORD : USERNAME;
      throw new IllegalArgumentException(
          set
              + " (from "
              + sources.get(set)
              + ") is set without "
              + missing
              + "; logging in to the config center needs both");
    }
    // Spring's own sources of the application name, readable before Spring starts.
    if (!values.containsKey(APP_NAME)) {
      String spring = systemProperties.get("spring.application.name");
      String source = "-Dspring.application.name";
      if (isBlank(spring)) {
        spring = environment.get("SPRING_APPLICATION_NAME");
        source = "SPRING_APPLICATION_NAME";
      }
      if (!isBlank(spring)) {
        values.put(APP_NAME, spring.trim());
        sources.put(APP_NAME, source);
      }
    }
    return new AgentConfig(values, sources);
  }

  static Map<String, String> parseAgentArgs(String agentArgs) {
    Map<String, String> result = new LinkedHashMap<>();
    if (isBlank(agentArgs)) {
      return result;
    }
    String lastKey = null;
    for (String piece : agentArgs.split(",")) {
      int eq = piece.indexOf('=');
      if (eq < 0) {
        if (lastKey == null) {
          throw new IllegalArgumentException(
              "agent argument '" + piece + "' is not key=value (in '" + agentArgs + "')");
        }
        result.put(lastKey, result.get(lastKey) + "," + piece.trim());
        continue;
      }
      lastKey = piece.substring(0, eq).trim().toLowerCase(Locale.ROOT);
      result.put(lastKey, piece.substring(eq + 1).trim());
    }
    return result;
  }

  static String environmentName(String key) {
    return "SLUICE_" + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }

  public String get(String key) {
    return values.get(key);
  }

  /** Where a setting came from, for the log ("-Dsluice.lane", "SLUICE_LANE", ...). */
  public String sourceOf(String key) {
    return sources.get(key);
  }

  /** Config center addresses; empty when none is configured. */
  public List<String> serverAddresses() {
    String value = values.get(SERVER_ADDR);
    if (value == null) {
      return List.of();
    }
    List<String> servers = new ArrayList<>();
    for (String s : value.split("[,;\\s]+")) {
      if (!s.isBlank()) {
        servers.add(s.trim());
      }
    }
    return servers;
  }

  /**
   * What the agent logs in to the config center with when it has auth on: {@code username} and
   * {@code password} (both, or neither: {@link #resolve} checks), or a ready {@code access.token};
   * none when neither is set.
   */
  public ConfigCredentials credentials() {
    return new ConfigCredentials(
        values.get(USERNAME), values.get(PASSWORD), values.get(ACCESS_TOKEN));
  }

  /** The namespace (tenant); empty for the default one. */
  public String namespace() {
    String ns = values.get(NAMESPACE);
    return ns == null || ns.equals("public") ? "" : ns;
  }

  /** The configured application name, or null to learn it from Spring. */
  public String applicationName() {
    return values.get(APP_NAME);
  }

  /** This instance's lane tag, or null for a base instance. */
  public String lane() {
    return values.get(LANE);
  }

  /** Whether woven classes are kept under the cache directory for the next start. */
  public boolean weaveCache() {
    return !"false".equalsIgnoreCase(values.get(WEAVE_CACHE));
  }

  /** Whether each second's statistics are sent to the server for its console (on by default). */
  public boolean trafficReport() {
    return !"false".equalsIgnoreCase(values.get(TRAFFIC_REPORT));
  }

  /**
   * How many seconds' statistics go in one report: a report is sent every that many seconds (5 by
   * default, 1 to 10). Each costs the application about the same CPU whatever it carries.
   */
  public int trafficReportSeconds() {
    return intValue(TRAFFIC_REPORT_SECONDS, DEFAULT_TRAFFIC_REPORT_SECONDS, 1, 10);
  }

  /**
   * Whether every resource keeps statistics, rather than only those with a rule (off by default: a
   * resource without rules then costs one field read per call, as before).
   */
  public boolean trafficAllResources() {
    return "true".equalsIgnoreCase(values.get(TRAFFIC_ALL_RESOURCES));
  }

  /** The loopback port of the opt-in Prometheus endpoint; 0 (the default) keeps it off. */
  public int metricsPort() {
    return intValue(METRICS_PORT, 0, 0, 65_535);
  }

  public boolean enabled() {
    return !"false".equalsIgnoreCase(values.get(ENABLED));
  }

  public List<String> disabledInstrumentations() {
    String value = values.get(DISABLED_INSTRUMENTATIONS);
    return value == null ? List.of() : Arrays.asList(value.split("[,;\\s]+"));
  }

  /** Opt-in instrumentations to turn on, e.g. {@code java-thread}. */
  public List<String> enabledInstrumentations() {
    String value = values.get(ENABLED_INSTRUMENTATIONS);
    return value == null ? List.of() : Arrays.asList(value.split("[,;\\s]+"));
  }

  public String logLevel() {
    return values.getOrDefault(LOG_LEVEL, "info");
  }

  public Path logDirectory() {
    String dir = values.get(LOG_DIR);
    return dir != null
        ? Path.of(dir)
        : Path.of(System.getProperty("java.io.tmpdir"), "sluice-agent");
  }

  public Path cacheDirectory() {
    String dir = values.get(CACHE_DIR);
    return dir != null
        ? Path.of(dir)
        : Path.of(System.getProperty("user.home"), ".sluice", "agent-cache");
  }

  public int flowBlockStatus() {
    return intValue(FLOW_BLOCK_STATUS, DEFAULT_FLOW_BLOCK_STATUS, 100, 599);
  }

  public int degradeBlockStatus() {
    return intValue(DEGRADE_BLOCK_STATUS, DEFAULT_DEGRADE_BLOCK_STATUS, 100, 599);
  }

  public int retryAfterSeconds() {
    return intValue(RETRY_AFTER_SECONDS, DEFAULT_RETRY_AFTER_SECONDS, 0, 86_400);
  }

  public long listenHoldMillis() {
    return intValue(LISTEN_HOLD_MS, (int) DEFAULT_LISTEN_HOLD_MS, 1_000, 120_000);
  }

  private int intValue(String key, int defaultValue, int min, int max) {
    String value = values.get(key);
    if (value == null) {
      return defaultValue;
    }
    int parsed;
    try {
      parsed = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          key + " must be a number, was '" + value + "' (from " + sources.get(key) + ")");
    }
    if (parsed < min || parsed > max) {
      throw new IllegalArgumentException(
          key
              + " must be between "
              + min
              + " and "
              + max
              + ", was "
              + parsed
              + " (from "
              + sources.get(key)
              + ")");
    }
    return parsed;
  }
}
