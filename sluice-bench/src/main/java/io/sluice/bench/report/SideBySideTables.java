package io.sluice.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.DoubleSummaryStatistics;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/**
 * The Nacos-vs-Sluice tables, one per driver, from the records of {@code
 * io.sluice.bench.competitors.SideBySide}: per operation the medians over the rounds of each
 * server's figures, their ranges, and Sluice ÷ Nacos of the medians with the range of the per-round
 * ratios (each round measured both servers within minutes of each other with the same driver).
 * Records of clusters ({@code nodes} above 1) make tables of their own, named {@code
 * side-by-side-cluster-<client>}, whose figures are the whole cluster's: CPU and memory summed over
 * its nodes.
 */
final class SideBySideTables {
  private SideBySideTables() {}

  /** An operation of the reference report: the driver's scenario and the figure compared. */
  private record Operation(String label, String scenario, String figure, String rate) {}

  private static final List<Operation> OPERATIONS =
      List.of(
          new Operation("config query", "config-query", "opsPerServerCpuSec", "opsPerSec"),
          new Operation("config publish", "config-publish", "opsPerServerCpuSec", "opsPerSec"),
          new Operation("service register", "naming-register", "opsPerServerCpuSec", "opsPerSec"),
          new Operation(
              "service query (100 × 10, 100 B metadata)",
              "naming-query",
              "opsPerServerCpuSec",
              "opsPerSec"),
          new Operation(
              "keep-alive (transport alone)", "health-check", "opsPerServerCpuSec", "opsPerSec"),
          new Operation(
              "change push: pushes (1 : 3 : 3)",
              "naming-push",
              "pushesPerServerCpuSec",
              "pushesPerSec"));

  static List<Table> of(List<JsonNode> records) {
    return of(records, "");
  }

  /**
   * @param variant names the tables of a second set of runs of the same kind (non-empty: {@code
   *     side-by-side-cluster-<variant>-<client>}), such as the long-warm-up cluster runs
   */
  static List<Table> of(List<JsonNode> records, String variant) {
    List<Table> tables = new ArrayList<>();
    TreeSet<Integer> sizes = new TreeSet<>();
    records.forEach(r -> sizes.add(nodes(r)));
    for (int nodes : sizes) {
      for (String client : List.of("lean", "official")) {
        List<JsonNode> mine =
            records.stream()
                .filter(r -> nodes(r) == nodes && client.equals(text(r, "client")))
                .toList();
        if (!mine.isEmpty()) {
          tables.add(table(client, nodes, variant, mine));
        }
      }
    }
    return tables;
  }

  /** {@code low–high} in whole units, one number when they round alike. */
  private static String range(DoubleSummaryStatistics values) {
    if (values.getCount() == 0) {
      return "an unrecorded";
    }
    String low = Stats.number(values.getMin(), 0);
    String high = Stats.number(values.getMax(), 0);
    return low.equals(high) ? low : low + "–" + high;
  }

  /** The nodes of the servers a record measured: 1 when it does not say (standalone runs). */
  private static int nodes(JsonNode r) {
    return r.path("nodes").asInt(1);
  }

  private static Table table(String client, int nodes, String variant, List<JsonNode> records) {
    TreeSet<Integer> rounds = new TreeSet<>();
    records.forEach(r -> rounds.add(r.path("round").asInt()));
    double loadMin = Double.MAX_VALUE;
    double loadMax = 0;
    TreeSet<String> times = new TreeSet<>();
    // The warm-up each scenario took (its fixed part and the wait for the compilers).
    DoubleSummaryStatistics warmup =
        records.stream()
            .mapToDouble(r -> num(r, "warmupSec"))
            .filter(Double::isFinite)
            .summaryStatistics();
    for (JsonNode r : records) {
      loadMin = Math.min(loadMin, Math.min(num(r, "loadAvg1Before"), num(r, "loadAvg1After")));
      loadMax = Math.max(loadMax, Math.max(num(r, "loadAvg1Before"), num(r, "loadAvg1After")));
      times.add(text(r, "startedAt"));
    }
    JsonNode any = records.get(0);
    String driver =
        client.equals("lean") ? "raw-protocol (lean) driver" : "official nacos-client 2.3.2 driver";
    String servers =
        nodes == 1
            ? "each server started fresh per round and pinned to core 0 (`taskset -c 0`)"
            : "each server started fresh per round as a "
                + nodes
                + "-node cluster on 127.0.0.1, every node pinned to core 0 (`taskset -c 0`), the"
                + " driver's connections spread over the nodes";
    String caption =
        String.format(
            Locale.ROOT,
            "**%s**, run %s to %s (UTC): %d alternating rounds, %s, the driver on core 1; %s except the"
                + " push (changes at a fixed rate, 1,000"
                + " services, each changed once a second), %.0f s measured after a warm-up of %s s per"
                + " scenario; 1-minute load average %.1f–%.1f during the"
                + " runs (the 2-core machine is shared). Figures per server-CPU-second (user +"
                + " system time of the server process over the window"
                + (nodes == 1 ? "" : ", summed over the nodes")
                + "); medians over the rounds,"
                + " range in brackets; Sluice ÷ Nacos is the ratio of the medians, the per-round"
                + " ratios in brackets.",
            driver,
            times.first(),
            times.last(),
            rounds.size(),
            servers,
            loopText(text(any, "load"), nodes),
            num(any, "seconds"),
            range(warmup),
            loadMin,
            loadMax);
    TreeSet<String> sluiceArgs = new TreeSet<>();
    records.stream()
        .filter(r -> "sluice".equals(text(r, "server")))
        .forEach(r -> sluiceArgs.add(r.path("sluiceArgs").asText("")));
    if (!sluiceArgs.equals(new TreeSet<>(List.of("")))) {
      caption +=
          " Sluice started as `bin/sluice server` with "
              + String.join(
                  " / ",
                  sluiceArgs.stream()
                      .map(a -> a.isEmpty() ? "no extra arguments" : "`" + a + "`")
                      .toList())
              + ".";
    }
    Table table =
        new Table(
            (nodes == 1 ? "side-by-side-" : "side-by-side-cluster-")
                + (variant.isEmpty() ? "" : variant + "-")
                + client,
            "Nacos 2.3.2 vs Sluice, "
                + (nodes == 1 ? "" : nodes + "-node clusters, ")
                + driver
                + ": work per server-CPU-second",
            caption,
            withCompilerShare(
                nodes,
                List.of(
                    "operation",
                    "Nacos 2.3.2 per server-CPU-s",
                    "Sluice per server-CPU-s",
                    "Sluice ÷ Nacos",
                    "wake-ups per call, Nacos / Sluice",
                    "Nacos p50 / p99 ms",
                    "Sluice p50 / p99 ms",
                    "Nacos / Sluice ops/s"),
                "JIT compiler's share of the CPU, Nacos / Sluice"));
    table.chartNote =
        String.format(
            Locale.ROOT,
            "%s to %s UTC, %d alternating round(s), %s on core 0, driver on core 1, 2-core"
                + " shared machine at load average %.1f–%.1f; medians; bytes and latencies in"
                + " docs/performance.md",
            times.first(),
            times.last(),
            rounds.size(),
            nodes == 1 ? "server" : "all " + nodes + " nodes",
            loadMin,
            loadMax);
    table.valueAxis = "per server-CPU-second (log scale)";
    table.logScale = true;
    for (Operation op : OPERATIONS) {
      List<JsonNode> of =
          records.stream().filter(r -> op.scenario.equals(text(r, "scenario"))).toList();
      if (of.isEmpty()) {
        continue;
      }
      List<Double> nacos = values(of, "nacos", r -> num(r, op.figure));
      List<Double> sluice = values(of, "sluice", r -> num(r, op.figure));
      List<Double> ratios = ratios(of, rounds, op.figure);
      double ratio = Stats.median(sluice) / Stats.median(nacos);
      table.row(
          withCompilerShare(
              nodes,
              List.of(
                  op.label,
                  Stats.medianAndRange(nacos, 0),
                  Stats.medianAndRange(sluice, 0),
                  "**"
                      + Stats.times(ratio)
                      + "**"
                      + (ratios.size() > 1
                          ? " ("
                              + Stats.times(Stats.min(ratios))
                              + "–"
                              + Stats.times(Stats.max(ratios))
                              + ")"
                          : ""),
                  wakeups(of),
                  latency(of, "nacos"),
                  latency(of, "sluice"),
                  Stats.number(Stats.median(values(of, "nacos", r -> num(r, op.rate))), 0)
                      + " / "
                      + Stats.number(Stats.median(values(of, "sluice", r -> num(r, op.rate))), 0)
                      + errors(of)),
              compilerShare(of)));
      String category = op.label.replaceAll(" \\(.*", "");
      table.plot("Nacos 2.3.2", category, Stats.median(nacos));
      table.plot("Sluice", category, Stats.median(sluice));
    }
    List<JsonNode> push =
        records.stream().filter(r -> "naming-push".equals(text(r, "scenario"))).toList();
    List<Double> nacosBytes =
        values(push, "nacos", r -> num(r, "pushedBytesPerServerCpuSec") / 1024);
    List<Double> sluiceBytes =
        values(push, "sluice", r -> num(r, "pushedBytesPerServerCpuSec") / 1024);
    if (!Double.isNaN(Stats.median(nacosBytes)) && !Double.isNaN(Stats.median(sluiceBytes))) {
      table.row(
          withCompilerShare(
              nodes,
              List.of(
                  "change push: KiB pushed",
                  Stats.medianAndRange(nacosBytes, 0),
                  Stats.medianAndRange(sluiceBytes, 0),
                  "**" + Stats.times(Stats.median(sluiceBytes) / Stats.median(nacosBytes)) + "**",
                  "",
                  "",
                  "",
                  Stats.number(
                          Stats.median(
                              values(push, "nacos", r -> num(r, "pushedBytesPerSec") / 1024)),
                          0)
                      + " / "
                      + Stats.number(
                          Stats.median(
                              values(push, "sluice", r -> num(r, "pushedBytesPerSec") / 1024)),
                          0)
                      + " KiB/s"),
              ""));
    }
    List<Double> nacosRss = peakRssPerRound(records, "nacos", rounds);
    List<Double> sluiceRss = peakRssPerRound(records, "sluice", rounds);
    table.row(
        withCompilerShare(
            nodes,
            List.of(
                nodes == 1 ? "RSS after the runs, MiB" : "RSS after the runs, MiB (all nodes)",
                Stats.medianAndRange(nacosRss, 0),
                Stats.medianAndRange(sluiceRss, 0),
                Stats.times(Stats.median(nacosRss) / Stats.median(sluiceRss)) + " smaller",
                "",
                "",
                "",
                ""),
            ""));
    return table;
  }

  /**
   * A cluster's table has one more column: the share of the nodes' CPU their JIT compiler threads
   * took in the window. Three JVMs compiling the same server on one core take minutes to settle, so
   * a cluster's figures minutes after its start are partly the compiler's, for both servers.
   */
  private static List<String> withCompilerShare(int nodes, List<String> cells, String share) {
    if (nodes == 1) {
      return cells;
    }
    List<String> all = new ArrayList<>(cells);
    all.add(share);
    return all;
  }

  /** Medians over the rounds of {@code serverJitCpuSec / serverCpuSec}, in %. */
  private static String compilerShare(List<JsonNode> of) {
    ToDoubleFunction<JsonNode> share =
        r -> 100 * num(r, "serverJitCpuSec") / num(r, "serverCpuSec");
    double nacos = Stats.median(values(of, "nacos", share));
    double sluice = Stats.median(values(of, "sluice", share));
    if (!Double.isFinite(nacos) || !Double.isFinite(sluice)) {
      return "";
    }
    return Stats.number(nacos, 0) + " % / " + Stats.number(sluice, 0) + " %";
  }

  /**
   * Medians of the servers' thread wake-ups per call, blank where a record has none (results
   * recorded before the driver counted them, and the push, whose operation is a change, not a
   * call).
   */
  private static String wakeups(List<JsonNode> of) {
    if (of.stream().anyMatch(r -> "naming-push".equals(text(r, "scenario")))) {
      return "";
    }
    double nacos = Stats.median(values(of, "nacos", r -> num(r, "serverWakeupsPerOp")));
    double sluice = Stats.median(values(of, "sluice", r -> num(r, "serverWakeupsPerOp")));
    if (!Double.isFinite(nacos) || !Double.isFinite(sluice)) {
      return "";
    }
    return Stats.number(nacos, 2) + " / " + Stats.number(sluice, 2);
  }

  /** Medians of p50 and p99: the call's latency, or change → subscriber for the push. */
  private static String latency(List<JsonNode> of, String server) {
    return Stats.number(Stats.median(values(of, server, r -> num(r, "p50Ms"))), 1)
        + " / "
        + Stats.number(Stats.median(values(of, server, r -> num(r, "p99Ms"))), 1);
  }

  private static String errors(List<JsonNode> of) {
    long nacos =
        of.stream()
            .filter(r -> "nacos".equals(text(r, "server")))
            .mapToLong(r -> r.path("errors").asLong())
            .sum();
    long sluice =
        of.stream()
            .filter(r -> "sluice".equals(text(r, "server")))
            .mapToLong(r -> r.path("errors").asLong())
            .sum();
    return nacos + sluice == 0 ? "" : " (errors: " + nacos + " / " + sluice + ")";
  }

  private static List<Double> values(
      List<JsonNode> of, String server, ToDoubleFunction<JsonNode> f) {
    return of.stream().filter(r -> server.equals(text(r, "server"))).map(f::applyAsDouble).toList();
  }

  /** Sluice ÷ Nacos within each round that measured both. */
  private static List<Double> ratios(List<JsonNode> of, TreeSet<Integer> rounds, String figure) {
    List<Double> ratios = new ArrayList<>();
    for (int round : rounds) {
      List<JsonNode> inRound = of.stream().filter(r -> r.path("round").asInt() == round).toList();
      double nacos = Stats.median(values(inRound, "nacos", r -> num(r, figure)));
      double sluice = Stats.median(values(inRound, "sluice", r -> num(r, figure)));
      if (Double.isFinite(nacos) && Double.isFinite(sluice) && nacos > 0) {
        ratios.add(sluice / nacos);
      }
    }
    return ratios;
  }

  private static List<Double> peakRssPerRound(
      List<JsonNode> records, String server, TreeSet<Integer> rounds) {
    List<Double> peaks = new ArrayList<>();
    for (int round : rounds) {
      double peak =
          records.stream()
              .filter(r -> r.path("round").asInt() == round && server.equals(text(r, "server")))
              .mapToDouble(r -> num(r, "serverRssMb"))
              .filter(Double::isFinite)
              .max()
              .orElse(Double.NaN);
      peaks.add(peak);
    }
    return peaks;
  }

  static String text(JsonNode r, String field) {
    return r.path(field).asText("");
  }

  static double num(JsonNode r, String field) {
    JsonNode v = r.get(field);
    return v == null || v.isNull() || !v.isNumber() ? Double.NaN : v.asDouble();
  }

  /** How the closed-loop workloads were driven, from a result's {@code load} field. */
  static String loopText(String load, int nodes) {
    if (load.startsWith("open/")) {
      return "open loop at a fixed "
          + load.substring("open/".length())
          + " requests (the same work per"
          + " second for both servers)";
    }
    return "closed loop ("
        + load.replace("closed/", "")
        + " in flight over "
        + (nodes == 1 ? "4 connections" : 2 * nodes + " connections, two per node")
        + ")";
  }
}
