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
        0,
        OpenLoopLoad.Lag.NONE);
  }

  /** A copy's figures with the given latency, answers and lag, one gateway as its instances. */
  private static ChainOverheadDriver.ChainFigures chain(
      String mode,
      double p50Micros,
      double p99Micros,
      int completed,
      int non200,
      OpenLoopLoad.Lag lag) {
    return new ChainOverheadDriver.ChainFigures(
        mode,
        chain(mode, 0.0).instances(),
        p50Micros,
        p99Micros,
        p99Micros,
        completed,
        0,
        non200,
        lag);
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
        "1.0 1.0 1.0",
        "");
  }

  @Test
  void summarizesThePairedLatencyPerHopAndTheThreadsTheAddedCpuIsOn() {
    ChainOverheadDriver.summarize(
        List.of(window(1, 40.0), window(2, 80.0), window(3, 60.0)),
        InterleavedWindows.SECOND,
        false);

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
  void saysWhichCopyFellBehindInTheMeasuredWindowWhyAndHowFar() {
    ChainOverheadDriver.ChainFigures slow =
        chain(
            "agent",
            31_200.0,
            2_400_000.0,
            15_000,
            0,
            new OpenLoopLoad.Lag(
                1_234,
                4_100_000_000L,
                2_300_000_000L,
                2_200_000_000L,
                20_000_000L,
                2_400_000_000L,
                0,
                -1));
    ChainOverheadDriver.Window window =
        new ChainOverheadDriver.Window(
            1,
            250,
            15_000,
            chain("none", 0.0),
            slow,
            new PairedDifference(15_000, 181.0, 0, 0, 0, 0),
            "27.1 20.0 10.0",
            "39.0 25.0 12.0",
            "; the driver itself woke up to 0.31 s late");

    ChainOverheadDriver.print(window);

    assertThat(printed.toString(StandardCharsets.UTF_8))
        .contains(
            "round 1, 250 req/s, load 27.1 20.0 10.0 -> 39.0 25.0 12.0  NOT SUSTAINED (the"
                + " measured window): none copy kept up | agent copy: p50 31.2 ms (limit 20),"
                + " p99 2.40 s (limit 1); last request sent 2.30 s after it was due, 1,234 waited"
                + " for a free slot (longest 4.10 s), send lag p99 2.20 s, last answer 2.40 s after"
                + " the last due time; the driver itself woke up to 0.31 s late");
  }

  @Test
  void saysWhenACopyWasGivenUpAndHowManyRequestsWereNotSent() {
    ChainOverheadDriver.ChainFigures givenUp =
        chain(
            "agent",
            5_200_000.0,
            10_100_000.0,
            4_100,
            0,
            new OpenLoopLoad.Lag(
                3_900,
                10_000_000_000L,
                10_000_000_000L,
                9_900_000_000L,
                1_000_000L,
                10_300_000_000L,
                10_900,
                17_000_000_000L));

    assertThat(ChainOverheadDriver.shortfall(givenUp, 15_000))
        .startsWith(
            "agent copy: given up 17 s into the window, more than the allowed lag behind: 10,900"
                + " of 15,000 not sent; 4,100 answered while it was driven (241 req/s over those"
                + " 17 s; its CPU figures are over the whole window, idle after), p50 5200.0 ms"
                + " (limit 20), p99 10.10 s (limit 1); last request sent 10.00 s after it was"
                + " due");
  }

  @Test
  void aWindowWithAnswersOtherThan200IsNotSustained() {
    ChainOverheadDriver.ChainFigures failing =
        chain("none", 1_600.0, 8_000.0, 30_000, 12, OpenLoopLoad.Lag.NONE);

    assertThat(ChainOverheadDriver.sustained(failing, 30_000)).isFalse();
    assertThat(ChainOverheadDriver.shortfall(failing, 30_000))
        .startsWith("none copy: 12 answers not 200; last request sent 0.00 s after it was due");
    assertThat(ChainOverheadDriver.sustained(chain("none", 0.0), 30_000)).isTrue();
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
            "1.0 1.0 1.0",
            "");

    ChainOverheadDriver.summarize(List.of(behind), InterleavedWindows.SECOND, false);

    assertThat(printed.toString(StandardCharsets.UTF_8))
        .contains("no window was sustained")
        .doesNotContain("+999");
  }

  /** One interleaved window: a gateway at {@code cpuMicros} per request, the copy's p50. */
  private static ChainOverheadDriver.ChainFigures interleavedWindow(
      String mode, double cpuMicros, double p50Micros) {
    return new ChainOverheadDriver.ChainFigures(
        mode,
        List.of(
            new ChainOverheadDriver.InstanceFigures(
                "gateway[base]", 8.0, 0.0, cpuMicros, 480.0, 50, Map.of())),
        p50Micros,
        8_000.0,
        40_000.0,
        2_500,
        0,
        0,
        OpenLoopLoad.Lag.NONE);
  }

  /**
   * Two cycles (A B B A, B A A B) in which every window costs 1 µs more than the one before and the
   * agent's copy (at position {@code agentCopy}) 15 µs more per request, its p50 80 µs more; window
   * {@code slow} (or none: -1) with a p50 over the sustained bound.
   */
  private static List<ChainOverheadDriver.ChainFigures> drifting(
      int[] order, int agentCopy, int slow) {
    List<ChainOverheadDriver.ChainFigures> windows = new java.util.ArrayList<>();
    for (int w = 0; w < order.length; w++) {
      boolean agent = order[w] == agentCopy;
      windows.add(
          interleavedWindow(
              agent ? "agent" : "none",
              320 + w + (agent ? 15 : 0),
              w == slow ? 25_000 : 1_600 + (agent ? 80 : 0)));
    }
    return windows;
  }

  @Test
  void summarizesInterleavedWindowsAsTheMedianOfTheCyclesDifferencesWithItsInterval() {
    int[] order = InterleavedWindows.order(2);

    ChainOverheadDriver.summarizeInterleaved(
        250,
        2_500,
        order,
        drifting(order, InterleavedWindows.SECOND, -1),
        InterleavedWindows.SECOND,
        false);

    String out = printed.toString(StandardCharsets.UTF_8);
    assertThat(out).contains("2 of 2 cycles counted");
    // The drift cancels within each cycle: +15 in both, so the interval is +15..+15 (two cycles:
    // the whole range, which covers the median half of the time).
    assertThat(out)
        .contains(
            "| gateway[base] | 324.0 | 338.0 | +15.0 | [+15.0..+15.0; 50.0 %] | +15.0 |"
                + " [+15.0..+15.0; 50.0 %] | 480 → 480 | +0 |");
    assertThat(out).contains("added per hop (÷ 4) +20.0 µs [+20.0..+20.0; 50.0 %]");
  }

  @Test
  void leavesOutAnInterleavedCycleWithAWindowThatWasNotSustained() {
    int[] order = InterleavedWindows.order(2);

    ChainOverheadDriver.summarizeInterleaved(
        250,
        2_500,
        order,
        drifting(order, InterleavedWindows.SECOND, 5),
        InterleavedWindows.SECOND,
        false);

    String out = printed.toString(StandardCharsets.UTF_8);
    assertThat(out).contains("1 of 2 cycles counted");
    assertThat(out).doesNotContain("25000");
    assertThat(out).contains("added per hop (÷ 4) +20.0 µs");
  }

  @Test
  void putsTheAgentOnTheCopyAskedForTheSecondByDefault() {
    assertThat(ChainOverheadDriver.agentCopy(Map.of())).isEqualTo(InterleavedWindows.SECOND);
    assertThat(ChainOverheadDriver.agentCopy(Map.of("agent-copy", "second")))
        .isEqualTo(InterleavedWindows.SECOND);
    assertThat(ChainOverheadDriver.agentCopy(Map.of("agent-copy", "first")))
        .isEqualTo(InterleavedWindows.FIRST);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ChainOverheadDriver.agentCopy(Map.of("agent-copy", "2")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--agent-copy takes first or second, not 2");

    assertThat(ChainOverheadDriver.inCopyOrder("none", "agent", InterleavedWindows.SECOND))
        .containsExactly("none", "agent");
    assertThat(ChainOverheadDriver.inCopyOrder("none", "agent", InterleavedWindows.FIRST))
        .containsExactly("agent", "none");
    // A B B A / B A A B by position; by role, with the agent first, the agent's windows are A's.
    assertThat(ChainOverheadDriver.byRole(InterleavedWindows.order(2), InterleavedWindows.FIRST))
        .containsExactly(1, 0, 0, 1, 0, 1, 1, 0);
    assertThat(ChainOverheadDriver.byRole(InterleavedWindows.order(2), InterleavedWindows.SECOND))
        .containsExactly(InterleavedWindows.order(2));
  }

  @Test
  void readsTheAgentMinusTheOtherCopyWhenTheAgentIsOnTheFirstAndSaysSo() {
    int[] order = InterleavedWindows.order(2);
    // By position; the agent's copy is the first: its windows (A's) cost 15 µs more, its p50 80.
    ChainOverheadDriver.summarizeInterleaved(
        250,
        2_500,
        order,
        drifting(order, InterleavedWindows.FIRST, -1),
        InterleavedWindows.FIRST,
        false);

    String out = printed.toString(StandardCharsets.UTF_8);
    assertThat(out).contains("the agent on the first copy (--agent-copy first;");
    assertThat(out)
        .contains(
            "| gateway[base] | 323.0 | 339.0 | +15.0 | [+15.0..+15.0; 50.0 %] | +15.0 |"
                + " [+15.0..+15.0; 50.0 %] | 480 → 480 | +0 |");
    assertThat(out).contains("added per hop (÷ 4) +20.0 µs [+20.0..+20.0; 50.0 %]");
  }

  @Test
  void warmsTheCopiesInTurnsEachStepEndingWithTheCopyTheFirstWindowDrives() {
    int steps = ChainOverheadDriver.WARM_UP_SHARES.size();
    assertThat(steps).isEqualTo(3);
    assertThat(ChainOverheadDriver.warmUpOrder(0, steps))
        .containsExactly(InterleavedWindows.SECOND, InterleavedWindows.FIRST);
    assertThat(ChainOverheadDriver.warmUpOrder(1, steps))
        .containsExactly(InterleavedWindows.FIRST, InterleavedWindows.SECOND);
    assertThat(ChainOverheadDriver.warmUpOrder(2, steps))
        .containsExactly(InterleavedWindows.SECOND, InterleavedWindows.FIRST);
    // Whatever the number of steps, the last ends with the copy of the first measured window.
    for (int n = 1; n <= 4; n++) {
      int[] last = ChainOverheadDriver.warmUpOrder(n - 1, n);
      assertThat(last[1]).isEqualTo(InterleavedWindows.order(1)[0]);
    }
  }

  @Test
  void passesTheApplicationArgumentsGivenToEveryApplicationAndRefusesAnythingElse() {
    assertThat(ChainOverheadDriver.appArguments(Map.of())).isEmpty();
    assertThat(
            ChainOverheadDriver.appArguments(
                Map.of("app-args", " --dubbo.metrics.enable-rpc=false  --x.y=1 ")))
        .containsExactly("--dubbo.metrics.enable-rpc=false", "--x.y=1");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ChainOverheadDriver.appArguments(Map.of("app-args", "-Xmx1g")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-Xmx1g");
  }
}
