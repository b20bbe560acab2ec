package io.sluice.bench.load;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One scenario's figures: a flat, ordered set of named values, printed as one JSON line (for
 * machines) and as a row of the summary table (for people).
 *
 * <p>Server CPU is user + system time of the server process during the measurement window, so
 * {@code opsPerServerCpuSec} compares servers fairly even when they run on different numbers of
 * cores or the driver leaves the server idle part of the time.
 */
final class ScenarioResult {
  private static final ObjectMapper json = new ObjectMapper();

  private final Map<String, Object> fields = new LinkedHashMap<>();

  private ScenarioResult() {}

  static ScenarioResult of(String scenario, String client, String load, Measurement.Window w) {
    ScenarioResult r = new ScenarioResult();
    LatencyStats.Snapshot main = w.main();
    long ops = main.count();
    r.put("scenario", scenario);
    r.put("client", client);
    r.put("load", load);
    r.put("seconds", round(w.seconds(), 2));
    r.put("ops", ops);
    r.put("errors", main.errors());
    r.put("opsPerSec", round(ops / w.seconds(), 1));
    r.put("p50Ms", round(main.percentileMillis(50), 3));
    r.put("p99Ms", round(main.percentileMillis(99), 3));
    r.put("p999Ms", round(main.percentileMillis(99.9), 3));
    r.put("maxMs", round(main.maxMillis(), 3));
    double cpu = w.serverCpuSeconds();
    r.put("serverCpuSec", round(cpu, 3));
    r.put("serverCpuSecPer1000Ops", ops == 0 ? null : round(cpu / ops * 1000, 4));
    r.put("opsPerServerCpuSec", cpu > 0 ? round(ops / cpu, 0) : null);
    // The compiler threads' part of the CPU above: large when the window caught the JIT at work.
    r.put("serverJitCpuSec", round(w.serverJitSeconds(), 3));
    r.put("serverRssMb", w.serverRssBytes() < 0 ? null : round(w.serverRssBytes() / 1048576.0, 1));
    r.put("serverThreads", w.serverThreads() < 0 ? null : w.serverThreads());
    // Returns of the server's threads from a blocking wait (voluntary context switches): at a
    // partial load each lone call wakes at least one thread, and the wake-up is much of its cost.
    long wakeups = w.serverWakeups();
    r.put("serverWakeupsPerOp", wakeups < 0 || ops == 0 ? null : round((double) wakeups / ops, 2));
    r.put("driverCpuSec", round(w.driverCpuSeconds(), 3));
    r.put("driverJitCpuSec", round(w.driverJitSeconds(), 3));
    // How long the warm-up ran, and whether both JVMs had stopped compiling by then (null: not
    // checked): a window opened on a JVM still compiling measures its JIT more than its work.
    r.put("warmupSec", round(w.warmupSeconds(), 1));
    r.put("jitSettled", w.jitSettled());
    List<String> names = w.names();
    for (int i = 1; i < names.size(); i++) {
      String name = names.get(i);
      LatencyStats.Snapshot s = w.stats().get(name);
      r.put(name + "Count", s.count());
      r.put(name + "Errors", s.errors());
      r.put(name + "P50Ms", round(s.percentileMillis(50), 3));
      r.put(name + "P99Ms", round(s.percentileMillis(99), 3));
    }
    return r;
  }

  ScenarioResult put(String key, Object value) {
    if (value instanceof Double d && (d.isNaN() || d.isInfinite())) {
      value = null;
    }
    fields.put(key, value);
    return this;
  }

  Object get(String key) {
    return fields.get(key);
  }

  long errors() {
    long errors = 0;
    for (Map.Entry<String, Object> f : fields.entrySet()) {
      if (f.getKey().endsWith("rrors") && f.getValue() instanceof Number n) {
        errors += n.longValue();
      }
    }
    return errors;
  }

  long ops() {
    return ((Number) fields.get("ops")).longValue();
  }

  String toJson() {
    try {
      return json.writeValueAsString(fields);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static double round(double value, int decimals) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return value;
    }
    double scale = Math.pow(10, decimals);
    return Math.round(value * scale) / scale;
  }

  private static final String[][] COLUMNS = {
    {"scenario", "%-16s"},
    {"client", "%-8s"},
    {"load", "%-12s"},
    {"opsPerSec", "%10s"},
    {"p50Ms", "%8s"},
    {"p99Ms", "%8s"},
    {"p999Ms", "%8s"},
    {"errors", "%7s"},
    {"serverCpuSecPer1000Ops", "%10s"},
    {"opsPerServerCpuSec", "%10s"},
    {"serverRssMb", "%7s"},
    {"serverThreads", "%5s"},
  };

  private static final String[] HEADERS = {
    "scenario",
    "client",
    "load",
    "ops/s",
    "p50 ms",
    "p99 ms",
    "p999 ms",
    "errors",
    "cpu s/1k",
    "ops/cpu-s",
    "RSS MB",
    "thr"
  };

  /** The human summary: one row per scenario. */
  static String table(List<ScenarioResult> results) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < COLUMNS.length; i++) {
      out.append(String.format(Locale.ROOT, COLUMNS[i][1], HEADERS[i])).append(' ');
    }
    out.append('\n');
    for (ScenarioResult r : results) {
      for (String[] column : COLUMNS) {
        Object v = r.fields.get(column[0]);
        out.append(String.format(Locale.ROOT, column[1], v == null ? "-" : format(v))).append(' ');
      }
      out.append('\n');
    }
    return out.toString();
  }

  private static String format(Object v) {
    if (v instanceof Double d) {
      return d == Math.rint(d) && Math.abs(d) >= 100
          ? Long.toString(d.longValue())
          : String.format(Locale.ROOT, "%.3f", d).replaceAll("0+$", "").replaceAll("\\.$", "");
    }
    return v.toString();
  }
}
