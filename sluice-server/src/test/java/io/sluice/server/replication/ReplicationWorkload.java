package io.sluice.server.replication;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A child process for the durability and recovery tests: runs a standalone replicator with a {@link
 * KeyValueState} and either writes until it is killed or reports what survived. Every line it
 * prints that a test relies on ends with " END", so a line cut short by SIGKILL is recognisable.
 *
 * <pre>
 * storm  DIR PREFIX THREADS SNAPSHOT_THRESHOLD   write PREFIX-thread-i until killed; "ACK key END"
 * fill   DIR COUNT MAX_BATCH_COMMANDS SNAPSHOT_THRESHOLD
 *                                                write COUNT keys, print "FILLED n END", wait
 * verify DIR OUT_FILE                            start, wait ready, write all keys to OUT_FILE,
 *                                                print "VERIFIED ... END", exit
 * </pre>
 */
public final class ReplicationWorkload {
  private ReplicationWorkload() {}

  public static void main(String[] args) throws Exception {
    long mainEnteredNanos = System.nanoTime();
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    Path dataDir = Path.of(args[1]);
    switch (args[0]) {
      case "storm" ->
          storm(out, dataDir, args[2], Integer.parseInt(args[3]), Long.parseLong(args[4]));
      case "fill" ->
          fill(
              out,
              dataDir,
              Integer.parseInt(args[2]),
              Integer.parseInt(args[3]),
              Long.parseLong(args[4]));
      case "verify" -> verify(out, dataDir, Path.of(args[2]), mainEnteredNanos);
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
  }

  private static ReplicationOptions.Builder options(Path dataDir) {
    return ReplicationOptions.builder(dataDir).self(new ReplicationPeer("n1", "127.0.0.1", 0));
  }

  private static void storm(
      PrintStream out, Path dataDir, String prefix, int threads, long snapshotThreshold)
      throws Exception {
    KeyValueState kv = new KeyValueState();
    RatisReplicator replicator =
        RatisReplicator.start(
            options(dataDir).snapshotThresholdEntries(snapshotThreshold).build(), List.of(kv));
    replicator.ready().get(60, TimeUnit.SECONDS);
    println(out, "READY");
    List<Thread> writers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Thread writer =
          new Thread(
              () -> {
                for (int i = 0; ; i++) {
                  String key = prefix + "-" + thread + "-" + i;
                  replicator.submit("kv", KeyValueState.put(key, "v" + i)).join();
                  println(out, "ACK " + key);
                }
              },
              "writer-" + t);
      writer.start();
      writers.add(writer);
    }
    for (Thread writer : writers) {
      writer.join();
    }
  }

  private static void fill(
      PrintStream out, Path dataDir, int count, int maxBatchCommands, long snapshotThreshold)
      throws Exception {
    KeyValueState kv = new KeyValueState();
    RatisReplicator replicator =
        RatisReplicator.start(
            options(dataDir)
                .maxBatchCommands(maxBatchCommands)
                .maxEntriesInFlight(maxBatchCommands == 1 ? 64 : 4)
                .snapshotThresholdEntries(snapshotThreshold)
                .build(),
            List.of(kv));
    replicator.ready().get(60, TimeUnit.SECONDS);
    Semaphore outstanding = new Semaphore(512);
    CountDownLatch done = new CountDownLatch(count);
    AtomicInteger failures = new AtomicInteger();
    long started = System.nanoTime();
    for (int i = 0; i < count; i++) {
      outstanding.acquire();
      replicator
          .submit("kv", KeyValueState.put("key-" + i, "value-" + i))
          .whenComplete(
              (outcome, failure) -> {
                if (failure != null) {
                  failures.incrementAndGet();
                }
                outstanding.release();
                done.countDown();
              });
    }
    done.await();
    double seconds = (System.nanoTime() - started) / 1e9;
    println(
        out,
        String.format(
            "FILLED %d failures=%d seconds=%.1f stats=%s",
            count, failures.get(), seconds, replicator.stats()));
    Thread.sleep(Long.MAX_VALUE); // until the test kills this process
  }

  private static void verify(PrintStream out, Path dataDir, Path keysFile, long mainEnteredNanos)
      throws Exception {
    int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
    KeyValueState kv = new KeyValueState();
    long startCalled = System.nanoTime();
    try (RatisReplicator replicator =
        RatisReplicator.start(options(dataDir).build(), List.of(kv))) {
      long startReturned = System.nanoTime();
      long cpuAtStartReturnMs = processCpuNanos() / 1_000_000;
      replicator.ready().get(120, TimeUnit.SECONDS);
      long ready = System.nanoTime();
      long jvmUptimeMs = ManagementFactory.getRuntimeMXBean().getUptime();
      long cpuMs = processCpuNanos() / 1_000_000;
      int threadsAfter = ManagementFactory.getThreadMXBean().getThreadCount();
      Files.write(keysFile, kv.keys());
      println(
          out,
          String.format(
              "VERIFIED keys=%d startToReadyMs=%.0f startCallMs=%.0f mainToReadyMs=%.0f"
                  + " jvmUptimeAtReadyMs=%d processCpuAtStartReturnMs=%d processCpuAtReadyMs=%d"
                  + " threadsAdded=%d rssMb=%d heapUsedMb=%d stats=%s",
              kv.size(),
              (ready - startCalled) / 1e6,
              (startReturned - startCalled) / 1e6,
              (ready - mainEnteredNanos) / 1e6,
              jvmUptimeMs,
              cpuAtStartReturnMs,
              cpuMs,
              threadsAfter - threadsBefore,
              rssKb() / 1024,
              heapUsedBytes() >> 20,
              replicator.stats()));
    }
  }

  /** Resident set size from /proc (Linux), 0 elsewhere. */
  private static long rssKb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("\\D", ""));
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return 0;
  }

  private static long heapUsedBytes() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static void println(PrintStream out, String line) {
    synchronized (out) {
      out.println(line + " END");
      out.flush();
    }
  }

  /** Starts this class in a child JVM with the test class path. */
  static Process launch(Path stderr, String... args) throws IOException {
    String classPath = System.getProperty("surefire.test.class.path");
    if (classPath == null || classPath.isBlank()) {
      classPath = System.getProperty("java.class.path");
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-cp");
    command.add(classPath);
    command.add(ReplicationWorkload.class.getName());
    command.addAll(List.of(args));
    return new ProcessBuilder(command)
        .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()))
        .start();
  }
}
