package io.sluice.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Regenerates every table of docs/performance.md that comes from a recorded run, and a PNG chart
 * per table, from the JSON lines the harnesses wrote into {@code docs/perf/}. A table lives in the
 * document between {@code <!-- report:NAME -->} and {@code <!-- /report:NAME -->}; its chart is
 * {@code docs/perf/NAME.png}. Text outside the markers is left alone, so the analysis around the
 * numbers stays hand-written while the numbers themselves only ever come from the recorded results.
 *
 * <pre>
 * java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.report.PerformanceReport
 * </pre>
 */
@Command(
    name = "performance-report",
    mixinStandardHelpOptions = true,
    description = "Tables and charts of docs/performance.md from the recorded results.")
public final class PerformanceReport implements Callable<Integer> {
  @Option(names = "--doc", defaultValue = "docs/performance.md")
  Path doc;

  @Option(
      names = "--data",
      defaultValue = "docs/perf",
      description = "Where the recorded results are and the charts go.")
  Path data;

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    System.exit(new CommandLine(new PerformanceReport()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    List<Table> tables = new ArrayList<>();
    Path sideBySide = data.resolve("side-by-side.jsonl");
    if (Files.exists(sideBySide)) {
      tables.addAll(SideBySideTables.of(read(sideBySide)));
    }
    Path clusters = data.resolve("side-by-side-cluster.jsonl");
    if (Files.exists(clusters)) {
      tables.addAll(SideBySideTables.of(read(clusters)));
    }
    // Clusters after minutes of warm-up per scenario: their compilers done, unlike the above.
    Path steadyClusters = data.resolve("side-by-side-cluster-steady.jsonl");
    if (Files.exists(steadyClusters)) {
      tables.addAll(SideBySideTables.of(read(steadyClusters), "steady"));
    }
    Path sentinel = data.resolve("sentinel.jsonl");
    if (Files.exists(sentinel)) {
      tables.addAll(SentinelTables.of(read(sentinel)));
    }
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    for (Table table : tables) {
      Path png = data.resolve(table.name + ".png");
      if (!table.lines.isEmpty()) {
        Charts.lines(
            table.title, table.captionLine(), table.xAxis, table.valueAxis, table.lines, png);
      } else if (!table.series.isEmpty()) {
        Charts.bars(table, png);
      }
      String chartPath =
          doc.toAbsolutePath().getParent().relativize(png.toAbsolutePath()).toString();
      text = replace(text, table.name, table.markdown(chartPath));
      System.out.printf("report: %s (%d rows)%n", table.name, table.rows.size());
    }
    Files.writeString(doc, text, StandardCharsets.UTF_8);
    return 0;
  }

  /** Replaces what lies between the markers of {@code name}; a missing marker is an error. */
  static String replace(String text, String name, String block) {
    String open = "<!-- report:" + name + " -->";
    String close = "<!-- /report:" + name + " -->";
    int start = text.indexOf(open);
    int end = text.indexOf(close);
    if (start < 0 || end < start) {
      throw new IllegalStateException(
          "the document has no " + open + " ... " + close + " block for table " + name);
    }
    return text.substring(0, start + open.length()) + "\n" + block + text.substring(end);
  }

  static List<JsonNode> read(Path jsonl) throws IOException {
    ObjectMapper json = new ObjectMapper();
    List<JsonNode> records = new ArrayList<>();
    for (String line : Files.readAllLines(jsonl, StandardCharsets.UTF_8)) {
      if (line.startsWith("{")) {
        records.add(json.readTree(line));
      }
    }
    return records;
  }
}
