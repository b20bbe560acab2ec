package io.sluice.bench.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.bench.competitors.SideBySide;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The CPU column of Sentinel's overhead table, paired: every configuration runs at once (each
 * application on CPU 0, idle while another is driven), and each one is compared with the baseline
 * in interleaved windows ({@link InterleavedWindows}: A B B A, then B A A B), so the host's drift
 * over minutes lands on both sides of each difference. Sequential single JVMs, as {@link
 * SentinelComparison}'s table runs them, could not resolve tens of µs a request on a shared 2-core
 * host: the baseline's own rounds there spread 110–193 µs.
 *
 * <p>Per rate, every application is first driven alone for the warm-up. Then each cycle runs one A
 * B B A cycle of the baseline against each other configuration in turn, so all the configurations'
 * estimates cover the same minutes. A window counts only if the driver sent at least 98 % of the
 * rate and every request was answered (200 or, under a rule, 429); the estimate is the median of
 * the cycles' differences in CPU µs per request, with its distribution-free 95 % interval ({@link
 * InterleavedWindows.MedianInterval}). The same difference without the JIT compiler threads' CPU is
 * recorded beside it.
 *
 * <pre>
 * java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.agent.SentinelPairedCpu \
 *   --app-jar sluice-bench/apps/order-service/target/order-service.jar \
 *   --agent-jar sluice-agent/target/sluice-agent.jar --modes baseline,sentinel-stats,sluice-stats \
 *   --rates 1000,3000,5000 --cycles 8 --window 6 --out docs/perf/sentinel-paired-cpu.jsonl
 * </pre>
 *
 * <p>{@code --modes baseline,baseline-copy,...} adds the A/A floor: a second plain application
 * ({@link #BASELINE_COPY}) paired with the baseline in the same cycles.
 */
public final class SentinelPairedCpu {
  static final double CONFIDENCE = 0.95;

  /** A window counts only if the driver sent this share of the rate. */
  static final double SENT_SHARE = 0.98;

  /**
   * A second, identical baseline application: paired with the baseline like any configuration, it
   * measures what the method reads for nothing (the A/A floor).
   */
  static final String BASELINE_COPY = "baseline-copy";

  private static final ObjectMapper json = new ObjectMapper();

  private SentinelPairedCpu() {}

  /** One driven window of one application. */
  record Window(
      String mode, double cpuMicrosPerRequest, double jitMicrosPerRequest, boolean counts) {
    double outsideJit() {
      return cpuMicrosPerRequest - jitMicrosPerRequest;
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options = AgentOverheadDriver.parse(args);
    Path appJar = Path.of(AgentOverheadDriver.require(options, "app-jar")).toAbsolutePath();
    Path agentJar = Path.of(AgentOverheadDriver.require(options, "agent-jar")).toAbsolutePath();
    Path out = Path.of(AgentOverheadDriver.require(options, "out"));
    String java =
        options.getOrDefault("java", ProcessHandle.current().info().command().orElse("java"));
    List<String> modes =
        List.of(options.getOrDefault("modes", "baseline,sentinel-stats,sluice-stats").split(","));
    checkModes(modes);
    List<Double> rates =
        Arrays.stream(options.getOrDefault("rates", "1000,3000").split(","))
            .map(Double::parseDouble)
            .toList();
    int cycles = Integer.parseInt(options.getOrDefault("cycles", "8"));
    int window = Integer.parseInt(options.getOrDefault("window", "6"));
    int settle = Integer.parseInt(options.getOrDefault("window-settle", "1"));
    int warmup = Integer.parseInt(options.getOrDefault("warmup", "30"));
    double flowQps =
        Double.parseDouble(
            options.getOrDefault("flow-qps", Double.toString(SentinelComparison.DEFAULT_FLOW_QPS)));
    int[] order = InterleavedWindows.order(cycles);
    Path work = Files.createTempDirectory("sentinel-paired");
    SentinelComparison.pin(ProcessHandle.current().pid(), "1");
    String run = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    System.err.printf(
        "sentinel paired CPU %s: %s against baseline, rates %s, %d cycles of 4 x %d s (+%d s"
            + " settle), %d s warm-up each%n",
        run, modes.subList(1, modes.size()), rates, cycles, window, settle, warmup);
    Map<String, SentinelComparison.App> apps = new LinkedHashMap<>();
    try {
      for (String mode : modes) {
        apps.put(
            mode,
            SentinelComparison.App.start(mode, java, appJar, agentJar, work, null, flowQps, 0));
      }
      for (double rate : rates) {
        for (SentinelComparison.App app : apps.values()) {
          SentinelComparison.drive(app, SentinelComparison.LEAN_DRIVER, rate, warmup);
        }
        double[] load = SideBySide.loadAverage();
        String startedAt = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        // windows.get(mode): that pair's windows in InterleavedWindows order.
        Map<String, List<Window>> windows = new LinkedHashMap<>();
        for (String mode : modes.subList(1, modes.size())) {
          windows.put(mode, new ArrayList<>());
        }
        for (int c = 0; c < cycles; c++) {
          for (String mode : windows.keySet()) {
            int first = c * InterleavedWindows.WINDOWS_PER_CYCLE;
            for (int w = first; w < first + InterleavedWindows.WINDOWS_PER_CYCLE; w++) {
              String driven = order[w] == InterleavedWindows.FIRST ? "baseline" : mode;
              Thread.sleep(settle * 1000L);
              windows.get(mode).add(window(apps.get(driven), rate, window));
            }
          }
          System.err.printf("  %.0f/s: cycle %d of %d done%n", rate, c + 1, cycles);
        }
        for (Map.Entry<String, List<Window>> pair : windows.entrySet()) {
          record(
              out,
              run,
              startedAt,
              load[0],
              rate,
              pair.getKey(),
              order,
              pair.getValue(),
              window,
              cycles);
        }
      }
    } finally {
      for (SentinelComparison.App app : apps.values()) {
        app.close();
      }
    }
  }

  /**
   * {@code --modes}: baseline first, then at least one other configuration of {@link
   * SentinelComparison#MODES} or {@link #BASELINE_COPY}, none twice.
   */
  static void checkModes(List<String> modes) {
    if (modes.size() < 2 || !modes.get(0).equals("baseline")) {
      throw new IllegalArgumentException(
          "--modes starts with baseline and names at least one more, not " + modes);
    }
    if (modes.stream().distinct().count() != modes.size()) {
      throw new IllegalArgumentException("--modes names a configuration twice: " + modes);
    }
    for (String mode : modes) {
      if (!SentinelComparison.MODES.contains(mode) && !mode.equals(BASELINE_COPY)) {
        throw new IllegalArgumentException(
            "unknown mode "
                + mode
                + "; known: "
                + SentinelComparison.MODES
                + " and "
                + BASELINE_COPY);
      }
    }
  }

  private static Window window(SentinelComparison.App app, double rate, int seconds)
      throws Exception {
    ProcessSample before = ProcessSample.of(app.pid());
    long wallBefore = System.nanoTime();
    SentinelComparison.Load load =
        SentinelComparison.drive(app, SentinelComparison.LEAN_DRIVER, rate, seconds);
    long wall = System.nanoTime() - wallBefore;
    ProcessSample after = ProcessSample.of(app.pid());
    int requests = load.status.length;
    int answered = load.count(200) + load.count(429);
    return new Window(
        app.mode(),
        after.cpuMicrosSince(before) / requests,
        after.jitMicrosSince(before) / requests,
        counts(seconds, load.sendNanos, wall, requests, answered));
  }

  /**
   * Whether a window measured the rate it was meant to: the driver sent every request within {@link
   * #SENT_SHARE} of the window's length (it did not fall behind), every request was answered (200,
   * or 429 under a rule), and no backlog took a second or more to drain after the last send.
   */
  static boolean counts(int seconds, long sendNanos, long wallNanos, int requests, int answered) {
    return sendNanos <= seconds * 1e9 / SENT_SHARE
        && answered == requests
        && wallNanos - sendNanos < 1_000_000_000L;
  }

  private static void record(
      Path out,
      String run,
      String startedAt,
      double load,
      double rate,
      String mode,
      int[] order,
      List<Window> windows,
      int window,
      int cycles)
      throws Exception {
    InterleavedWindows.MedianInterval all = interval(order, windows, Window::cpuMicrosPerRequest);
    InterleavedWindows.MedianInterval outsideJit = interval(order, windows, Window::outsideJit);
    ObjectNode r = json.createObjectNode();
    r.put("kind", "paired-cpu");
    r.put("round", 1);
    r.put("driver", SentinelComparison.LEAN_DRIVER);
    r.put("run", run);
    r.put("startedAt", startedAt);
    r.put("loadAvg1Before", load);
    r.put("loadAvg1After", SideBySide.loadAverage()[0]);
    r.put("rate", rate);
    r.put("mode", mode);
    r.put("against", "baseline");
    r.put("windowSeconds", window);
    r.put("cycles", cycles);
    r.put("cyclesCounted", all.n());
    r.put("addedMicrosPerRequest", SentinelComparison.round(all.median(), 1));
    r.put("addedLow", SentinelComparison.round(all.low(), 1));
    r.put("addedHigh", SentinelComparison.round(all.high(), 1));
    r.put("coverage", SentinelComparison.round(all.coverage(), 3));
    r.put("addedOutsideJit", SentinelComparison.round(outsideJit.median(), 1));
    r.put("addedOutsideJitLow", SentinelComparison.round(outsideJit.low(), 1));
    r.put("addedOutsideJitHigh", SentinelComparison.round(outsideJit.high(), 1));
    r.put("baselineMicrosPerRequest", SentinelComparison.round(medianCpu(windows, "baseline"), 1));
    r.put("modeMicrosPerRequest", SentinelComparison.round(medianCpu(windows, mode), 1));
    ArrayNode list = r.putArray("windows");
    for (Window w : windows) {
      ArrayNode entry = list.addArray();
      entry.add(w.mode());
      entry.add(SentinelComparison.round(w.cpuMicrosPerRequest(), 1));
      entry.add(SentinelComparison.round(w.jitMicrosPerRequest(), 1));
      entry.add(w.counts());
    }
    SentinelComparison.append(out, r);
    System.err.printf(
        Locale.ROOT,
        "  %.0f/s %-16s vs baseline: %+.1f µs/request (%+.1f..%+.1f, %d of %d cycles), outside the"
            + " JIT %+.1f%n",
        rate,
        mode,
        all.median(),
        all.low(),
        all.high(),
        all.n(),
        cycles,
        outsideJit.median());
  }

  private static InterleavedWindows.MedianInterval interval(
      int[] order, List<Window> windows, ToDoubleFunction<Window> value) {
    return InterleavedWindows.MedianInterval.of(
        InterleavedWindows.cycleDifferences(order, windows, value, Window::counts), CONFIDENCE);
  }

  /** The median CPU µs per request of one application's counted windows (NaN if none counted). */
  private static double medianCpu(List<Window> windows, String mode) {
    double[] values =
        windows.stream()
            .filter(w -> w.mode().equals(mode) && w.counts())
            .mapToDouble(Window::cpuMicrosPerRequest)
            .toArray();
    return InterleavedWindows.MedianInterval.of(values, CONFIDENCE).median();
  }
}
