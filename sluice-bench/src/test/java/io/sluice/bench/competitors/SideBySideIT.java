package io.sluice.bench.competitors;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The smoke pass of the side-by-side harness, Sluice only (CI has no Nacos): it starts {@code
 * bin/sluice} pinned, runs every workload with the lean driver in a child JVM, and records one line
 * per scenario with the round, the server and the load average. No figure is asserted.
 */
class SideBySideIT {
  @TempDir Path work;

  @Test
  void recordsEveryWorkloadOfOneRoundAgainstSluice() throws Exception {
    Path out = work.resolve("results.jsonl");
    int exit =
        new CommandLine(new SideBySide())
            .execute(
                "--servers",
                "sluice",
                "--sluice",
                Path.of("..", "bin", "sluice").toString(),
                "--sluice-skip-build",
                "--clients",
                "lean",
                "--workloads",
                "config,register,query,push,health-check",
                "--rounds",
                "1",
                "--smoke",
                // A second per workload: enough for errors to show, which is all that is checked.
                "--duration",
                "1",
                "--push-services",
                "10",
                "--churn-rate",
                "10",
                "--work",
                work.resolve("servers").toString(),
                "--out",
                out.toString());

    assertThat(exit).as("exit code (0: every driver run finished without errors)").isZero();
    List<JsonNode> records = new ArrayList<>();
    for (String line : Files.readAllLines(out)) {
      records.add(new ObjectMapper().readTree(line));
    }
    assertThat(records)
        .extracting(r -> r.path("scenario").asText())
        .containsExactly(
            "config-query",
            "config-publish",
            "naming-register",
            "naming-query",
            "naming-push",
            "health-check");
    for (JsonNode r : records) {
      assertThat(r.path("server").asText()).isEqualTo("sluice");
      assertThat(r.path("round").asInt()).isEqualTo(1);
      assertThat(r.path("errors").asLong()).as(r.toString()).isZero();
      assertThat(r.path("serverCpuSec").isNumber()).as(r.toString()).isTrue();
      assertThat(r.has("loadAvg1Before")).isTrue();
    }
    assertThat(records.get(4).path("pushesPerChange").asDouble())
        .as("pushes per change")
        .isPositive();
  }

  /**
   * A 3-node Sluice cluster on 127.0.0.1 (the harness waits until it takes and serves a write on
   * every node), driven by both clients over all three nodes: every scenario runs without an error,
   * and the server's CPU and memory are read from all three processes.
   */
  @Test
  void drivesEveryWorkloadOverAThreeNodeClusterWithBothClients() throws Exception {
    Path out = work.resolve("cluster.jsonl");
    int exit =
        new CommandLine(new SideBySide())
            .execute(
                "--servers",
                "sluice",
                "--sluice",
                Path.of("..", "bin", "sluice").toString(),
                "--sluice-skip-build",
                "--nodes",
                "3",
                "--clients",
                "lean,official",
                "--workloads",
                "config,register,query,push",
                "--rounds",
                "1",
                "--smoke",
                "--duration",
                // nacos-client opens its config connection on the first call: give it time.
                "3",
                "--push-services",
                "10",
                "--churn-rate",
                "10",
                "--work",
                work.resolve("cluster").toString(),
                "--out",
                out.toString());

    assertThat(exit).as("exit code (0: every driver run finished without errors)").isZero();
    List<JsonNode> records = new ArrayList<>();
    for (String line : Files.readAllLines(out)) {
      records.add(new ObjectMapper().readTree(line));
    }
    assertThat(records)
        .extracting(r -> r.path("client").asText() + " " + r.path("scenario").asText())
        .containsExactly(
            "lean config-query",
            "lean config-publish",
            "lean naming-register",
            "lean naming-query",
            "lean naming-push",
            "official config-query",
            "official config-publish",
            "official naming-register",
            "official naming-query",
            "official naming-push");
    for (JsonNode r : records) {
      assertThat(r.path("nodes").asInt()).isEqualTo(3);
      assertThat(r.path("errors").asLong()).as(r.toString()).isZero();
      assertThat(r.path("ops").asLong()).as(r.toString()).isPositive();
      assertThat(r.path("serverThreads").asInt())
          .as("threads of all three nodes: more than one JVM's")
          .isGreaterThan(3 * 20);
    }
  }

  @Test
  void refusesATwoNodeClusterBeforeStartingAnything() {
    int exit =
        new CommandLine(new SideBySide())
            .execute(
                "--servers",
                "sluice",
                "--nodes",
                "2",
                "--out",
                work.resolve("none.jsonl").toString());

    assertThat(exit).isNotZero();
    assertThat(work.resolve("none.jsonl")).doesNotExist();
  }
}
