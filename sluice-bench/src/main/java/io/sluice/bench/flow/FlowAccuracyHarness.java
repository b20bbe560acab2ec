package io.sluice.bench.flow;

import com.alibaba.csp.sentinel.Entry;
import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.BlockException;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.Permit;
import io.sluice.flow.Resource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

/**
 * How exact is each limiter? Offers twice the limit per second, in bursts placed around the edges a
 * fixed or bucketed window would have, on real time, and reports the most admissions any sliding
 * one-second window saw. Each second gets four bursts of {@code limit/2} calls, 3 ms before and
 * after each whole second and each half second of the wall clock (Sentinel's 500 ms buckets start
 * there; Resilience4j's cycles are aligned with it by creating the limiter on a whole second). With
 * several threads, each thread fires its share of each burst at the same moment.
 *
 * <p>{@code java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.flow.FlowAccuracyHarness
 * --limit 100 --seconds 10 --threads 4}
 */
public final class FlowAccuracyHarness {

  private static final long MS = 1_000_000L;
  private static final long SECOND = 1000 * MS;

  private FlowAccuracyHarness() {}

  public static void main(String[] args) throws Exception {
    int limit = 100;
    int seconds = 10;
    int threads = 1;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--limit" -> limit = Integer.parseInt(args[i + 1]);
        case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
        case "--threads" -> threads = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    System.setProperty("csp.sentinel.log.dir", "target/sentinel-logs");
    System.out.printf(
        Locale.ROOT,
        "limit %d/s, %d s, %d thread(s), offered 2x the limit in bursts of %d around edges%n",
        limit,
        seconds,
        threads,
        limit / 2);
    System.out.printf(
        Locale.ROOT,
        "%-36s %8s %9s %8s   %s%n",
        "library",
        "offered",
        "admitted",
        "avg/s",
        "worst sliding 1 s: certainly / possibly");

    FlowRegistry registry = FlowRegistry.builder().build();
    Resource sluice = SluiceSetup.withQpsRule(registry, "accuracy", limit);
    report(
        "sluice-flow (sliding log)",
        limit,
        run(
            () -> {
              long permit = sluice.tryAcquire();
              sluice.release(permit);
              return Permit.isAdmitted(permit);
            },
            limit,
            seconds,
            threads));

    SentinelSetup.qpsRules(List.of("accuracy"), limit);
    report(
        "Sentinel 1.8.9 (2 x 500 ms buckets)",
        limit,
        run(FlowAccuracyHarness::sentinelCall, limit, seconds, threads));

    waitForWholeSecond();
    RateLimiter r4j = Resilience4jSetup.rateLimiter("accuracy", limit);
    report(
        "Resilience4j 2.4.0 (1 s cycles)",
        limit,
        run(r4j::acquirePermission, limit, seconds, threads));
  }

  private static boolean sentinelCall() {
    try {
      Entry entry = SphU.entry("accuracy");
      entry.exit();
      return true;
    } catch (BlockException blocked) {
      return false;
    }
  }

  /** Runs the burst schedule; returns [offered, before0, after0, before1, after1, ...]. */
  private static long[] run(BooleanSupplier call, int limit, int seconds, int threads)
      throws InterruptedException {
    // Warm the code paths up off the record, well away from the measured seconds.
    for (int i = 0; i < 20_000; i++) {
      call.getAsBoolean();
    }
    waitForWholeSecond();
    long wallOffset = System.currentTimeMillis() * MS - System.nanoTime();
    long firstSecond = (System.nanoTime() + wallOffset) / SECOND + 2;
    ConcurrentLinkedQueue<long[]> admitted = new ConcurrentLinkedQueue<>();
    int perThread = Math.max(1, limit / 2 / threads);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker =
          new Thread(
              () -> {
                for (int s = 0; s < seconds; s++) {
                  long base = (firstSecond + s) * SECOND - wallOffset;
                  long[] bursts = {base - 3 * MS, base + 3 * MS, base + 497 * MS, base + 503 * MS};
                  for (long at : bursts) {
                    while (System.nanoTime() < at) {
                      Thread.onSpinWait();
                    }
                    for (int i = 0; i < perThread; i++) {
                      long before = System.nanoTime();
                      if (call.getAsBoolean()) {
                        admitted.add(new long[] {before, System.nanoTime()});
                      }
                    }
                  }
                }
              });
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      worker.join();
    }
    long[] out = new long[2 * admitted.size() + 1];
    out[0] = (long) perThread * threads * 4 * seconds;
    int i = 1;
    for (long[] interval : admitted) {
      out[i++] = interval[0];
      out[i++] = interval[1];
    }
    return out;
  }

  private static void report(String library, int limit, long[] result) {
    long offered = result[0];
    int n = (result.length - 1) / 2;
    long[][] calls = new long[n][];
    for (int i = 0; i < n; i++) {
      calls[i] = new long[] {result[1 + 2 * i], result[2 + 2 * i]};
    }
    java.util.Arrays.sort(calls, (a, b) -> Long.compare(a[0], b[0]));
    long certainly = 0;
    long possibly = 0;
    for (int i = 0; i < n; i++) {
      // Windows starting at a call's earliest or latest possible admission time.
      for (long start : new long[] {calls[i][0], calls[i][1]}) {
        long inside = 0;
        long touching = 0;
        for (int j = 0; j < n; j++) {
          long before = calls[j][0];
          long after = calls[j][1];
          if (before >= start && after < start + SECOND) {
            inside++;
          }
          if (after >= start && before < start + SECOND) {
            touching++;
          }
        }
        certainly = Math.max(certainly, inside);
        possibly = Math.max(possibly, touching);
      }
    }
    double span = n < 2 ? 1 : (calls[n - 1][0] - calls[0][0]) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "%-36s %8d %9d %8.1f   %d (%.2fx) / %d%n",
        library,
        offered,
        n,
        n / Math.max(1, span),
        certainly,
        (double) certainly / limit,
        possibly);
  }

  private static void waitForWholeSecond() throws InterruptedException {
    long ms = System.currentTimeMillis();
    Thread.sleep(1000 - ms % 1000);
  }
}
