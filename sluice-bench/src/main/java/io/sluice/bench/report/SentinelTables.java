package io.sluice.bench.report;

import static io.sluice.bench.report.SideBySideTables.num;
import static io.sluice.bench.report.SideBySideTables.text;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * The Sentinel-vs-Sluice-agent tables from the records of {@code
 * io.sluice.bench.agent.SentinelComparison}: overhead per configuration and rate, the once-a-second
 * tail (stall), and the rule-push delay.
 */
final class SentinelTables {
  private SentinelTables() {}

  private static final List<String[]> MODES =
      List.of(
          new String[] {"baseline", "baseline (no governance)"},
          new String[] {"sentinel-stats", "Sentinel 1.8.8: statistics only"},
          new String[] {"sluice-stats", "Sluice agent: no rule"},
          new String[] {"sentinel-flow", "Sentinel: one %s QPS flow rule"},
          new String[] {"sluice-flow", "Sluice agent: one %s QPS flow rule"},
          new String[] {"sentinel-breaker", "Sentinel: one slow-call-ratio breaker"},
          new String[] {"sluice-breaker", "Sluice agent: one slow-call-ratio breaker"});

  /**
   * The paired table's rows: the A/A floor first, then every configuration but the baseline, which
   * the paired run subtracts from the others.
   */
  private static final List<String[]> PAIRED_MODES =
      Stream.concat(
              Stream.<String[]>of(new String[] {"baseline-copy", "A/A floor: a second baseline"}),
              MODES.stream().skip(1))
          .toList();

  /** The mode's label, with the flow rule's threshold as the run set it. */
  private static String label(String[] mode, List<JsonNode> records) {
    double qps =
        records.stream()
            .mapToDouble(r -> num(r, "flowQps"))
            .filter(Double::isFinite)
            .findFirst()
            .orElse(3000);
    return mode[1].contains("%s") ? String.format(mode[1], Stats.number(qps, 0)) : mode[1];
  }

  static List<Table> of(List<JsonNode> records) {
    List<JsonNode> overhead =
        records.stream().filter(r -> !r.has("kind") && routes(r) == 0).toList();
    List<JsonNode> manyRoutes =
        records.stream().filter(r -> !r.has("kind") && routes(r) > 0).toList();
    List<JsonNode> delays =
        records.stream().filter(r -> "push-delay".equals(text(r, "kind"))).toList();
    List<JsonNode> paired =
        records.stream().filter(r -> "paired-cpu".equals(text(r, "kind"))).toList();
    List<Table> tables = new ArrayList<>();
    if (!overhead.isEmpty()) {
      tables.add(overhead(overhead));
      tables.add(stall(overhead, "sentinel-stall"));
    }
    if (!manyRoutes.isEmpty()) {
      tables.add(stall(manyRoutes, "sentinel-stall-routes"));
    }
    if (!delays.isEmpty()) {
      tables.add(pushDelay(delays));
    }
    if (!paired.isEmpty()) {
      tables.add(pairedCpu(paired));
    }
    return tables;
  }

  /**
   * The CPU each configuration adds to the baseline's, from {@code SentinelPairedCpu}: all
   * applications running at once, each compared with the baseline in interleaved windows.
   */
  private static Table pairedCpu(List<JsonNode> records) {
    JsonNode any = records.get(0);
    Table table =
        new Table(
            "sentinel-paired-cpu",
            "CPU added per request to the baseline's, paired in interleaved windows",
            conditions(
                records,
                String.format(
                    Locale.ROOT,
                    "**CPU added per request, paired**: every configuration's application started"
                        + " at once on core 0 (each idle while another is driven), the lean driver"
                        + " on core 1; per rate, each configuration against the baseline in %s"
                        + " cycles of four %s s windows (A B B A, then B A A B), the pairs taking"
                        + " turns cycle by cycle; per cycle, the configuration's mean CPU µs per"
                        + " request minus the baseline's; median of the cycles with its"
                        + " distribution-free 95 %% interval. A window counts only if the driver"
                        + " kept the rate and every request was answered",
                    Stats.number(num(any, "cycles"), 0),
                    Stats.number(num(any, "windowSeconds"), 0))),
            List.of(
                "configuration",
                "req/s",
                "CPU µs added per request (95 % interval)",
                "without the JIT's threads",
                "baseline µs per request",
                "cycles counted"));
    table.valueAxis = "CPU µs added per request (median of cycles)";
    // The bars are medians only: the note says how many of the configurations' intervals hold
    // zero (the A/A floor's should).
    List<JsonNode> configurations =
        records.stream().filter(r -> !"baseline-copy".equals(text(r, "mode"))).toList();
    long holdingZero =
        configurations.stream()
            .filter(r -> num(r, "addedLow") <= 0 && num(r, "addedHigh") >= 0)
            .count();
    table.chartNote =
        String.format(
            Locale.ROOT,
            "%s cycles of 4 x %s s windows per rate, all applications on core 0, driver on core 1;"
                + " bars are medians of the cycles' differences; %d of the configurations' %d 95 %%"
                + " intervals include zero (intervals in docs/performance.md)",
            Stats.number(num(any, "cycles"), 0),
            Stats.number(num(any, "windowSeconds"), 0),
            holdingZero,
            configurations.size());
    // Runs may add one rate each: rows by configuration, then by rate.
    List<JsonNode> byRate =
        records.stream().sorted(Comparator.comparingDouble(r -> num(r, "rate"))).toList();
    for (String[] mode : PAIRED_MODES) {
      for (JsonNode r : byRate) {
        if (!mode[0].equals(text(r, "mode"))) {
          continue;
        }
        String rate = Stats.number(num(r, "rate"), 0);
        table.row(
            List.of(
                label(mode, records),
                rate,
                interval(r, "addedMicrosPerRequest", "addedLow", "addedHigh"),
                interval(r, "addedOutsideJit", "addedOutsideJitLow", "addedOutsideJitHigh"),
                Stats.number(num(r, "baselineMicrosPerRequest"), 1),
                Stats.number(num(r, "cyclesCounted"), 0)
                    + " of "
                    + Stats.number(num(r, "cycles"), 0)));
        table.plot(label(mode, records), rate + " req/s", num(r, "addedMicrosPerRequest"));
      }
    }
    return table;
  }

  /** {@code +m (+low to +high)} from a record's median and interval fields. */
  private static String interval(JsonNode r, String median, String low, String high) {
    return signed(num(r, median))
        + " ("
        + signed(num(r, low))
        + " to "
        + signed(num(r, high))
        + ")";
  }

  private static String signed(double value) {
    return Double.isFinite(value)
        ? (value > 0 ? "+" : value < 0 ? "−" : "") + Stats.number(Math.abs(value), 1)
        : "—";
  }

  private static String conditions(List<JsonNode> records, String what) {
    TreeSet<String> times = new TreeSet<>();
    TreeSet<Integer> rounds = new TreeSet<>();
    TreeSet<String> drivers = new TreeSet<>();
    double loadMin = Double.MAX_VALUE;
    double loadMax = 0;
    for (JsonNode r : records) {
      times.add(text(r, "startedAt"));
      rounds.add(r.path("round").asInt());
      // Records from before the driver was recorded were all driven by the JDK's HttpClient.
      drivers.add(
          "lean-http1".equals(text(r, "driver"))
              ? "one thread's NIO HTTP/1.1, 64 kept-alive connections"
              : "JDK HttpClient");
      loadMin = Math.min(loadMin, num(r, "loadAvg1Before"));
      loadMax = Math.max(loadMax, num(r, "loadAvg1Before"));
    }
    return String.format(
        Locale.ROOT,
        "%s, run %s to %s (UTC), %d round(s); the application (Spring Boot 3.5.7, Tomcat, 512 MB"
            + " heap, serial GC) pinned to core 0, the open-loop driver (%s, latency from each"
            + " request's due time) on core 1; 1-minute load average %.1f–%.1f (shared 2-core"
            + " machine).",
        what,
        times.first(),
        times.last(),
        rounds.size(),
        String.join(" and ", drivers),
        loadMin,
        loadMax);
  }

  private static Table overhead(List<JsonNode> records) {
    JsonNode any = records.get(0);
    Table table =
        new Table(
            "sentinel-overhead",
            "Sentinel 1.8.8 (Spring MVC adapter) vs the Sluice agent: CPU per request",
            conditions(
                records,
                String.format(
                    Locale.ROOT,
                    "**Order-query service, 5 ± 2 ms handler**, %d s measured per rate after a"
                        + " warm-up; medians over the rounds; RT is of the requests answered 200",
                    any.path("seconds").asInt())),
            List.of(
                "configuration",
                "offered req/s",
                "sent req/s",
                "RT p50 / p95 / p99 ms",
                "CPU % of a core",
                "CPU µs/req",
                "RSS MiB",
                "admitted per 1 s window (median / max)",
                "refused (429)"));
    table.valueAxis = "application CPU µs per request";
    TreeSet<Double> rates = new TreeSet<>();
    records.forEach(r -> rates.add(num(r, "rate")));
    for (String[] mode : MODES) {
      for (double rate : rates) {
        List<JsonNode> of =
            records.stream()
                .filter(r -> mode[0].equals(text(r, "mode")) && num(r, "rate") == rate)
                .toList();
        if (of.isEmpty()) {
          continue;
        }
        String admitted = "";
        if (mode[0].endsWith("-flow")) {
          List<Double> medians = new ArrayList<>();
          List<Double> maxima = new ArrayList<>();
          for (JsonNode r : of) {
            List<Double> windows = new ArrayList<>();
            r.path("admittedPerSecond").forEach(w -> windows.add(w.asDouble()));
            medians.add(Stats.median(windows));
            maxima.add(Stats.max(windows));
          }
          admitted =
              Stats.number(Stats.median(medians), 0) + " / " + Stats.number(Stats.max(maxima), 0);
        }
        table.row(
            List.of(
                label(mode, records),
                Stats.number(rate, 0),
                Stats.number(median(of, r -> num(r, "sentPerSec")), 0),
                Stats.number(median(of, r -> num(r, "p50Ms")), 2)
                    + " / "
                    + Stats.number(median(of, r -> num(r, "p95Ms")), 2)
                    + " / "
                    + Stats.number(median(of, r -> num(r, "p99Ms")), 2),
                Stats.number(median(of, r -> num(r, "cpuPercent")), 1),
                Stats.number(median(of, r -> num(r, "cpuMicrosPerRequest")), 1),
                Stats.number(median(of, r -> num(r, "rssMib")), 0),
                admitted,
                Stats.number(median(of, r -> num(r, "blocked")), 0)
                    + (median(of, r -> num(r, "otherStatus") + num(r, "transportErrors")) > 0
                        ? " (+"
                            + Stats.number(
                                median(of, r -> num(r, "otherStatus") + num(r, "transportErrors")),
                                0)
                            + " other)"
                        : "")));
        table.plot(
            String.format(Locale.ROOT, "%,.0f req/s", rate),
            mode[0],
            median(of, r -> num(r, "cpuMicrosPerRequest")));
      }
    }
    return table;
  }

  /** The routes beside {@code /orders/{id}} a record's run spread its requests over (0: none). */
  private static int routes(JsonNode record) {
    return record.path("routes").asInt(0);
  }

  /**
   * The tail by position within the second, and the latency over time, at the run's middle rate;
   * over {@code routes + 1} routes when the run spread its requests over more than one.
   */
  private static Table stall(List<JsonNode> records, String name) {
    int routes = routes(records.get(0));
    String over =
        routes == 0
            ? ""
            : String.format(
                Locale.ROOT,
                ", requests spread evenly over %,d routes (`--routes %d`: `/orders/{id}` and"
                    + " `/orders1`..`/orders%d`, each a resource of its own to both)",
                routes + 1,
                routes,
                routes);
    TreeSet<Double> rates = new TreeSet<>();
    records.forEach(r -> rates.add(num(r, "rate")));
    List<Double> sorted = new ArrayList<>(rates);
    double rate = sorted.get(sorted.size() / 2);
    List<JsonNode> at = records.stream().filter(r -> num(r, "rate") == rate).toList();
    Table table =
        new Table(
            name,
            String.format(
                Locale.ROOT,
                "Latency over time at %,.0f req/s%s (p99 per 100 ms)",
                rate,
                routes == 0 ? "" : String.format(Locale.ROOT, " over %,d routes", routes + 1)),
            conditions(
                at,
                String.format(
                    Locale.ROOT,
                    "**Once-a-second tail** at %,.0f req/s: p99 of the answered requests in each"
                        + " 50 ms slot of the second (due time modulo 1 s, all seconds of the"
                        + " window folded together), so a stall that recurs every second (such as"
                        + " Sentinel's metric-log writer, `MetricTimerListener`, once a second)"
                        + " lifts one slot above the rest; medians over the rounds. The chart shows"
                        + " one round's p99 per 100 ms over the measured window%s",
                    rate,
                    over)),
            List.of(
                "configuration",
                "p99 of the worst slot ms",
                "median slot p99 ms",
                "worst ÷ median",
                "max over the window ms"));
    table.valueAxis = "p99 per 100 ms (ms)";
    table.xAxis = "seconds into the measured window";
    for (String[] mode : MODES) {
      List<JsonNode> of = at.stream().filter(r -> mode[0].equals(text(r, "mode"))).toList();
      if (of.isEmpty()) {
        continue;
      }
      List<Double> worst = new ArrayList<>();
      List<Double> typical = new ArrayList<>();
      List<Double> maxima = new ArrayList<>();
      for (JsonNode r : of) {
        List<Double> slots = new ArrayList<>();
        r.path("p99BySlotMs").forEach(v -> slots.add(v.asDouble()));
        worst.add(Stats.max(slots));
        typical.add(Stats.median(slots));
        double max = 0;
        for (JsonNode point : r.path("timeline")) {
          max = Math.max(max, point.get(2).asDouble());
        }
        maxima.add(max);
      }
      table.row(
          List.of(
              label(mode, records),
              Stats.number(Stats.median(worst), 2),
              Stats.number(Stats.median(typical), 2),
              Stats.times(Stats.median(worst) / Stats.median(typical)),
              Stats.number(Stats.median(maxima), 1)));
      if (mode[0].equals("baseline") || mode[0].endsWith("-stats")) {
        List<double[]> points = new ArrayList<>();
        for (JsonNode point : of.get(0).path("timeline")) {
          points.add(new double[] {point.get(0).asDouble(), point.get(1).asDouble()});
        }
        table.lines.put(label(mode, records), points);
      }
    }
    return table;
  }

  private static Table pushDelay(List<JsonNode> records) {
    Table table =
        new Table(
            "rule-push-delay",
            "Rule-push delay: publish to the config center → the application refuses",
            conditions(
                records,
                "**Rule-push delay**: sluice-server as the config center (core 1, beside the"
                    + " driver), the application on core 0 under 1,000 req/s; a 10 QPS flow rule is"
                    + " published (`POST /nacos/v1/cs/configs`, group `SENTINEL_GROUP`, dataId"
                    + " `order-service-flow-rules`) and the delay runs from sending the publish to"
                    + " the due time of the first request refused (1 ms resolution); a lax rule"
                    + " restores the flow between rounds"),
            List.of("watcher", "rounds", "delay median ms", "min–max ms"));
    table.valueAxis = "delay, ms (median)";
    for (String[] mode :
        List.of(
            new String[] {
              "sentinel-nacos",
              "Sentinel 1.8.8 `sentinel-datasource-nacos` (nacos-client 2.3.2, gRPC push)"
            },
            new String[] {"sluice-watcher", "Sluice agent's rule watcher (HTTP long-poll)"})) {
      List<Double> delays =
          records.stream()
              .filter(r -> mode[0].equals(text(r, "mode")))
              .map(r -> num(r, "delayMs"))
              .toList();
      if (delays.isEmpty()) {
        continue;
      }
      long missing = delays.stream().filter(d -> !Double.isFinite(d)).count();
      table.row(
          List.of(
              mode[1],
              delays.size() + (missing > 0 ? " (" + missing + " never enforced in 3 s)" : ""),
              Stats.number(Stats.median(delays), 1),
              Stats.number(Stats.min(delays), 1) + "–" + Stats.number(Stats.max(delays), 1)));
      table.plot("median delay", mode[0], Stats.median(delays));
    }
    return table;
  }

  private static double median(List<JsonNode> of, ToDoubleFunction<JsonNode> f) {
    return Stats.median(of.stream().map(f::applyAsDouble).toList());
  }
}
