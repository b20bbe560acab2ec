package io.sluice.bench.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ChainOverheadDriverTest {
  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  private PrintStream standardOut;

  @BeforeEach
  void capture() {
    standardOut = System.out;
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
  }

  @AfterEach
  void restore() {
    System.setOut(standardOut);
  }

  private static ChainOverheadDriver.ChainFigures chain(String mode, double reporterPoints) {
    return new ChainOverheadDriver.ChainFigures(
        mode,
        List.of(
            new ChainOverheadDriver.InstanceFigures(
                "gateway[base]",
                8.0 + reporterPoints,
                0.1,
                320.0,
                480.0,
                50,
                Map.of("reactor-http-ep", 7.5, "sluice-agent-tr", reporterPoints))),
        1_600.0,
        8_000.0,
        40_000.0,
        30_000,
        0,
        0);
  }

  private static ChainOverheadDriver.Window window(int round, double pairedMedianMicros) {
    return new ChainOverheadDriver.Window(
        round,
        500,
        30_000,
        chain("none", 0.0),
        chain("agent", 0.25),
        new PairedDifference(30_000, pairedMedianMicros, -5, 5, -10, 10),
        "1.0 1.0 1.0",
        "1.0 1.0 1.0");
  }

  @Test
  void summarizesThePairedLatencyPerHopAndTheThreadsTheAddedCpuIsOn() {
    ChainOverheadDriver.summarize(List.of(window(1, 40.0), window(2, 80.0), window(3, 60.0)));

    String out = printed.toString(StandardCharsets.UTF_8);
    // Median of the windows' paired medians (60 µs), and per hop over the four services (15 µs).
    assertThat(out)
        .contains(
            "| p50 of the request pairs' differences (each window's median) | | | +60.0 (+40.0..+80.0) | +15.0 (+10.0..+20.0) |");
    assertThat(out).contains("| gateway[base]: thread group | no agent | agent | added (paired) |");
    assertThat(out).contains("| sluice-agent-tr | 0.00 | 0.25 | +0.25 (+0.25..+0.25) |");
    assertThat(out).contains("| reactor-http-ep | 7.50 | 7.50 | +0.00 (+0.00..+0.00) |");
  }

  @Test
  void leavesOutWindowsInWhichACopyFellBehind() {
    ChainOverheadDriver.Window behind =
        new ChainOverheadDriver.Window(
            1,
            500,
            30_001, // one request more offered than either copy completed
            chain("none", 0.0),
            chain("agent", 0.25),
            new PairedDifference(30_000, 999.0, 0, 0, 0, 0),
            "1.0 1.0 1.0",
            "1.0 1.0 1.0");

    ChainOverheadDriver.summarize(List.of(behind));

    assertThat(printed.toString(StandardCharsets.UTF_8))
        .contains("no window was sustained")
        .doesNotContain("+999");
  }
}
