package io.sluice.bench.replication;

import io.sluice.server.replication.RatisReplicator;
import io.sluice.server.replication.ReplicationOptions;
import io.sluice.server.replication.ReplicationStats;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Load driver for the replication layer: writes through a standalone {@link RatisReplicator}
 * (one-peer Ratis group, fsync on, real disk) with a fixed number of writes outstanding (closed
 * loop), with group commit on ("batched") and with one command per Raft entry ("unbatched"), and
 * prints writes/s, latency, CPU per write and threads.
 *
 * <pre>
 * mvn -B -q -pl sluice-bench -am package -DskipTests
 * java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.replication.ReplicationBenchmark \
 *     [--seconds 10] [--warmup 3] [--concurrency 1,16,64,256,1024] [--modes batched,unbatched] \
 *     [--payload 100] [--in-flight N] [--data-dir /tmp/sluice-replication-bench]
 * </pre>
 *
 * {@code --in-flight} overrides {@link ReplicationOptions#maxEntriesInFlight()} in batched mode.
 *
 * <p>CPU is the whole process's (Ratis, the replicator and this driver), from the JVM's process CPU
 * time; "driver" is the part spent in the driver's own submitting threads, so the replication cost
 * is the difference. The completion callbacks that count writes run on the replicator's completion
 * thread and are included in the replication side.
 */
public final class ReplicationBenchmark {
  private static final int DRIVER_THREADS = 2;

  private ReplicationBenchmark() {}

  public static void main(String[] args) throws Exception {
    int seconds = 10;
    int warmup = 3;
    int payload = 100;
    List<Integer> concurrencies = List.of(1, 16, 64, 256, 1024);
    List<String> modes = List.of("batched", "unbatched");
    Path dataDir = Path.of(System.getProperty("java.io.tmpdir"), "sluice-replication-bench");
    int inFlight = ReplicationOptions.DEFAULT_MAX_ENTRIES_IN_FLIGHT;
    for (int i = 0; i < args.length; i += 2) {
      String value = args[i + 1];
      switch (args[i]) {
        case "--seconds" -> seconds = Integer.parseInt(value);
        case "--warmup" -> warmup = Integer.parseInt(value);
        case "--payload" -> payload = Integer.parseInt(value);
        case "--concurrency" ->
            concurrencies = Arrays.stream(value.split(",")).map(Integer::valueOf).toList();
        case "--modes" -> modes = List.of(value.split(","));
        case "--data-dir" -> dataDir = Path.of(value);
        case "--in-flight" -> inFlight = Integer.parseInt(value);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "replication benchmark: %d cores, Java %s, payload %d B, %d s per run after %d s warm-up,"
            + " data in %s%n",
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"),
        payload,
        seconds,
        warmup,
        dataDir);
    System.out.printf(
        Locale.ROOT,
        "%-9s %6s %10s %8s %9s %8s %8s %10s %10s %7s %8s %9s%n",
        "mode",
        "conc",
        "writes/s",
        "entries",
        "cmd/entry",
        "p50 ms",
        "p99 ms",
        "cpu us/w",
        "drv us/w",
        "threads",
        "thr st/s",
        "ready ms");
    for (String mode : modes) {
      for (int concurrency : concurrencies) {
        run(mode, concurrency, seconds, warmup, payload, inFlight, dataDir);
      }
    }
  }

  private static void run(
      String mode,
      int concurrency,
      int seconds,
      int warmup,
      int payload,
      int inFlight,
      Path dataDir)
      throws Exception {
    deleteRecursively(dataDir);
    boolean batched = mode.equals("batched");
    ReplicationOptions.Builder options = ReplicationOptions.builder(dataDir);
    if (batched) {
      options.maxEntriesInFlight(inFlight);
    } else {
      // One command per entry; let Ratis have as many entries in flight as there are writers.
      options.maxBatchCommands(1).maxEntriesInFlight(Math.max(1, Math.min(concurrency, 1024)));
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    int threadsBefore = threads.getThreadCount();
    long startCalled = System.nanoTime();
    try (RatisReplicator replicator =
        RatisReplicator.start(options.build(), List.of(new CounterState()))) {
      replicator.ready().get(30, TimeUnit.SECONDS);
      double readyMs = (System.nanoTime() - startCalled) / 1e6;
      int threadsAdded = threads.getThreadCount() - threadsBefore;

      Driver driver = new Driver(replicator, concurrency, payload);
      driver.start();
      Thread.sleep(TimeUnit.SECONDS.toMillis(warmup));

      ReplicationStats statsBefore = replicator.stats();
      long writesBefore = driver.completed.get();
      long failuresBefore = driver.failed.get();
      long cpuBefore = processCpuNanos();
      long driverCpuBefore = driver.cpuNanos();
      long threadsStartedBefore = threads.getTotalStartedThreadCount();
      driver.recordLatencies(true);
      long began = System.nanoTime();
      Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
      long elapsed = System.nanoTime() - began;
      driver.recordLatencies(false);
      long writes = driver.completed.get() - writesBefore;
      long failures = driver.failed.get() - failuresBefore;
      long cpu = processCpuNanos() - cpuBefore;
      long driverCpu = driver.cpuNanos() - driverCpuBefore;
      long threadsStarted = threads.getTotalStartedThreadCount() - threadsStartedBefore;
      ReplicationStats statsAfter = replicator.stats();
      driver.stop();

      long entries = statsAfter.entriesApplied() - statsBefore.entriesApplied();
      long commands = statsAfter.commandsApplied() - statsBefore.commandsApplied();
      long[] latencies = driver.latencies();
      double secondsElapsed = elapsed / 1e9;
      System.out.printf(
          Locale.ROOT,
          "%-9s %6d %10.0f %8d %9.1f %8.2f %8.2f %10.1f %10.1f %7d %8.1f %9.0f%s%n",
          mode,
          concurrency,
          writes / secondsElapsed,
          entries,
          entries == 0 ? 0.0 : (double) commands / entries,
          percentile(latencies, 0.50) / 1e6,
          percentile(latencies, 0.99) / 1e6,
          writes == 0 ? 0.0 : cpu / 1e3 / writes,
          writes == 0 ? 0.0 : driverCpu / 1e3 / writes,
          threadsAdded,
          threadsStarted / secondsElapsed,
          readyMs,
          failures == 0 ? "" : "  (" + failures + " failed)");
    }
  }

  /** Keeps {@code concurrency} writes outstanding from a few threads. */
  private static final class Driver {
    private final RatisReplicator replicator;
    private final Semaphore outstanding;
    private final byte[] command;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicBoolean recording = new AtomicBoolean();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();

    /** Latency samples; written by the completion thread only. */
    private long[] samples = new long[1 << 16];

    private int sampleCount;

    Driver(RatisReplicator replicator, int concurrency, int payload) {
      this.replicator = replicator;
      this.outstanding = new Semaphore(concurrency);
      this.command = new byte[payload];
    }

    void start() {
      for (int i = 0; i < DRIVER_THREADS; i++) {
        Thread thread = new Thread(this::loop, "bench-driver-" + i);
        thread.setDaemon(true);
        thread.start();
        threads.add(thread);
      }
    }

    void stop() throws InterruptedException {
      running.set(false);
      for (Thread thread : threads) {
        thread.interrupt();
        thread.join();
      }
    }

    void recordLatencies(boolean on) {
      recording.set(on);
    }

    long cpuNanos() {
      ThreadMXBean bean = ManagementFactory.getThreadMXBean();
      long sum = 0;
      for (Thread thread : threads) {
        sum += Math.max(0, bean.getThreadCpuTime(thread.getId()));
      }
      return sum;
    }

    synchronized long[] latencies() {
      return Arrays.copyOf(samples, sampleCount);
    }

    private void loop() {
      while (running.get()) {
        try {
          outstanding.acquire();
        } catch (InterruptedException e) {
          return;
        }
        long submitted = System.nanoTime();
        replicator
            .submit(CounterState.NAME, command)
            .whenComplete(
                (outcome, failure) -> {
                  outstanding.release();
                  if (failure != null) {
                    failed.incrementAndGet();
                    return;
                  }
                  completed.incrementAndGet();
                  if (recording.get()) {
                    record(System.nanoTime() - submitted);
                  }
                });
      }
    }

    private synchronized void record(long nanos) {
      if (sampleCount == samples.length) {
        samples = Arrays.copyOf(samples, samples.length * 2);
      }
      samples[sampleCount++] = nanos;
    }
  }

  private static double percentile(long[] values, double quantile) {
    if (values.length == 0) {
      return 0;
    }
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[Math.min(sorted.length - 1, (int) (quantile * sorted.length))];
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
