package io.sluice.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class PerformanceReportTest {
  @TempDir Path dir;

  private static String record(int round, String server, String scenario, double perCpu) {
    return "{\"run\":\"r\",\"round\":"
        + round
        + ",\"server\":\""
        + server
        + "\",\"client\":\"lean\",\"scenario\":\""
        + scenario
        + "\",\"load\":\"closed/64\",\"seconds\":15.0,\"startedAt\":\"2026-12-01T02:00:0"
        + round
        + "Z\",\"loadAvg1Before\":0.5,\"loadAvg1After\":1.5,\"opsPerSec\":1000.0,\"p50Ms\":1.0,"
        + "\"p99Ms\":2.0,\"errors\":0,\"opsPerServerCpuSec\":"
        + perCpu
        + ",\"serverRssMb\":"
        + (server.equals("nacos") ? 800 : 160)
        + ",\"serverWakeupsPerOp\":"
        + (server.equals("nacos") ? 6.5 : 1.0)
        + "}";
  }

  @Test
  void writesTheMediansAndTheSameRunRatiosBetweenTheMarkersAndDrawsTheChart() throws Exception {
    Files.writeString(
        dir.resolve("side-by-side.jsonl"),
        String.join(
            "\n",
            List.of(
                record(1, "nacos", "naming-register", 10_000),
                record(1, "sluice", "naming-register", 40_000),
                record(2, "nacos", "naming-register", 12_000),
                record(2, "sluice", "naming-register", 60_000),
                record(3, "nacos", "naming-register", 11_000),
                record(3, "sluice", "naming-register", 55_000),
                record(1, "nacos", "health-check", 8_000),
                record(1, "sluice", "health-check", 28_000))));
    Path doc = dir.resolve("performance.md");
    Files.writeString(
        doc,
        "before\n<!-- report:side-by-side-lean -->\nold\n<!-- /report:side-by-side-lean -->\nafter\n");

    int exit =
        new CommandLine(new PerformanceReport())
            .execute("--doc", doc.toString(), "--data", dir.toString());

    assertThat(exit).isZero();
    String text = Files.readString(doc);
    assertThat(text).startsWith("before\n").endsWith("after\n").doesNotContain("old");
    assertThat(text)
        .contains(
            "| service register | 11,000 (10,000–12,000) | 55,000 (40,000–60,000) | **5.0×**"
                + " (4.0×–5.0×) | 6.50 / 1.00 |")
        .contains("| keep-alive (transport alone) | 8,000 | 28,000 | **3.5×** | 6.50 / 1.00 |")
        .contains("| RSS after the runs, MiB | 800 (800–800) | 160 (160–160) | 5.0× smaller |  |")
        .contains("1-minute load average 0.5–1.5")
        .contains("![");
    assertThat(dir.resolve("side-by-side-lean.png")).isNotEmptyFile();
  }

  @Test
  void aClusterRunMakesTablesOfItsOwnWithTheWholeClustersFigures() throws Exception {
    Files.writeString(
        dir.resolve("side-by-side-cluster.jsonl"),
        String.join(
            "\n",
            List.of(
                cluster(record(1, "nacos", "naming-query", 9_000)),
                cluster(record(1, "sluice", "naming-query", 36_000)),
                cluster(record(2, "sluice", "naming-query", 30_000)),
                cluster(record(2, "nacos", "naming-query", 10_000)))));
    Path doc = dir.resolve("performance.md");
    Files.writeString(
        doc,
        "<!-- report:side-by-side-cluster-lean -->\n<!-- /report:side-by-side-cluster-lean -->\n");

    int exit =
        new CommandLine(new PerformanceReport())
            .execute("--doc", doc.toString(), "--data", dir.toString());

    assertThat(exit).isZero();
    assertThat(Files.readString(doc))
        .contains("Nacos 2.3.2 vs Sluice, 3-node clusters, raw-protocol (lean) driver")
        .contains("as a 3-node cluster on 127.0.0.1, every node pinned to core 0")
        .contains("summed over the nodes")
        .contains("64 in flight over 6 connections, two per node")
        .contains(
            "| service query (100 × 10, 100 B metadata) | 9,500 (9,000–10,000) | 33,000"
                + " (30,000–36,000) | **3.5×** (3.0×–4.0×) |")
        .contains(" | 25 % / 25 % |\n")
        .contains("JIT compiler's share of the CPU, Nacos / Sluice")
        .contains("| RSS after the runs, MiB (all nodes) |");
    assertThat(dir.resolve("side-by-side-cluster-lean.png")).isNotEmptyFile();
  }

  @Test
  void longWarmUpClusterRunsMakeTablesOfTheirOwnThatSayTheWarmUp() throws Exception {
    Files.writeString(
        dir.resolve("side-by-side-cluster.jsonl"),
        cluster(record(1, "nacos", "naming-query", 9_000))
            + "\n"
            + cluster(record(1, "sluice", "naming-query", 36_000)));
    Files.writeString(
        dir.resolve("side-by-side-cluster-steady.jsonl"),
        Stream.of(
                record(1, "nacos", "naming-query", 20_000),
                record(1, "sluice", "naming-query", 90_000))
            .map(r -> cluster(r).replace("{\"nodes\"", "{\"warmupSec\":181.5,\"nodes\""))
            .collect(Collectors.joining("\n")));
    Path doc = dir.resolve("performance.md");
    Files.writeString(
        doc,
        "<!-- report:side-by-side-cluster-lean -->\n<!-- /report:side-by-side-cluster-lean -->\n"
            + "<!-- report:side-by-side-cluster-steady-lean -->\n"
            + "<!-- /report:side-by-side-cluster-steady-lean -->\n");

    int exit =
        new CommandLine(new PerformanceReport())
            .execute("--doc", doc.toString(), "--data", dir.toString());

    assertThat(exit).isZero();
    String written = Files.readString(doc);
    String steady = written.substring(written.indexOf("report:side-by-side-cluster-steady-lean"));
    assertThat(steady)
        .contains("after a warm-up of 182 s per scenario")
        .contains("| 20,000 | 90,000 | **4.5×** |");
    // The short-warm-up table is unchanged by the other file, and says it had no recorded warm-up.
    assertThat(written.substring(0, written.indexOf("report:side-by-side-cluster-steady-lean")))
        .contains("after a warm-up of an unrecorded s per scenario")
        .contains("| 9,000 | 36,000 | **4.0×** |");
    assertThat(dir.resolve("side-by-side-cluster-steady-lean.png")).isNotEmptyFile();
  }

  private static String cluster(String record) {
    return record.replace(
        "{\"run\"", "{\"nodes\":3,\"serverCpuSec\":12.0,\"serverJitCpuSec\":3.0,\"run\"");
  }

  @Test
  void thePairedCpuRunMakesATableOfTheAddedCpuWithItsIntervals() throws Exception {
    Files.writeString(
        dir.resolve("sentinel.jsonl"),
        String.join(
            "\n",
            List.of(
                paired("sentinel-stats", 1000, 24.5, 18.0, 31.2, -0.4),
                paired("sluice-stats", 1000, 3.1, -2.0, 6.8, 0),
                paired("baseline-copy", 1000, -1.2, -4.0, 3.5, 0),
                paired("sluice-stats", 500, 2.0, -1.0, 4.0, 0))));
    Path doc = dir.resolve("performance.md");
    Files.writeString(
        doc, "<!-- report:sentinel-paired-cpu -->\n<!-- /report:sentinel-paired-cpu -->\n");

    int exit =
        new CommandLine(new PerformanceReport())
            .execute("--doc", doc.toString(), "--data", dir.toString());

    assertThat(exit).isZero();
    assertThat(Files.readString(doc))
        .contains("in 8 cycles of four 6 s windows")
        .contains(
            "| Sentinel 1.8.8: statistics only | 1,000 | +24.5 (+18.0 to +31.2) | +24.1 (+17.6 to"
                + " +30.8) | 120.0 | 8 of 8 |")
        .contains("| Sluice agent: no rule | 1,000 | +3.1 (−2.0 to +6.8) |");
    // The floor comes first, whatever the records' order.
    assertThat(Files.readString(doc))
        .containsSubsequence(
            "| A/A floor: a second baseline | 1,000 | −1.2 (−4.0 to +3.5) |",
            "| Sentinel 1.8.8: statistics only |",
            "| Sluice agent: no rule | 500 |",
            "| Sluice agent: no rule | 1,000 |");
    assertThat(dir.resolve("sentinel-paired-cpu.png")).isNotEmptyFile();
    assertThat(SentinelTables.of(PerformanceReport.read(dir.resolve("sentinel.jsonl"))))
        .singleElement()
        .extracting(Table::captionLine)
        .asString()
        .contains("2 of the configurations' 3 95 % intervals include zero");
  }

  private static String paired(
      String mode, int rate, double added, double low, double high, double jit) {
    return String.format(
        java.util.Locale.ROOT,
        "{\"kind\":\"paired-cpu\",\"round\":1,\"driver\":\"lean-http1\",\"run\":\"r\","
            + "\"startedAt\":\"2026-12-04T17:00:00Z\",\"loadAvg1Before\":1.0,\"rate\":%d,"
            + "\"mode\":\"%s\",\"windowSeconds\":6,\"cycles\":8,\"cyclesCounted\":8,"
            + "\"addedMicrosPerRequest\":%s,\"addedLow\":%s,\"addedHigh\":%s,"
            + "\"addedOutsideJit\":%s,\"addedOutsideJitLow\":%s,\"addedOutsideJitHigh\":%s,"
            + "\"baselineMicrosPerRequest\":120.0}",
        rate,
        mode,
        added,
        low,
        high,
        added + jit,
        low + jit,
        high + jit);
  }

  @Test
  void refusesADocumentWithoutTheTablesMarkers() {
    assertThatThrownBy(() -> PerformanceReport.replace("no markers here", "t", "x"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("<!-- report:t -->");
  }
}
