package io.sluice.bench.agent;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * A process's CPU time, resident memory and thread count, read from {@code /proc/PID/stat} and
 * {@code /proc/PID/status} (Linux only). CPU time is user + system, in clock ticks of {@code
 * 1/CLK_TCK} s (100 Hz on Linux), so it is meaningful over runs of many seconds. {@code jitTicks}
 * is the part of it the JVM's C1 and C2 compiler threads spent (from {@code /proc/PID/task}): on a
 * machine where many JVMs share two cores, compiling goes on for minutes and lands in whichever
 * window it falls, so a comparison can be read with and without it.
 */
record ProcessSample(long cpuTicks, long jitTicks, long rssKib, int threads) {
  static final int CLOCK_TICKS_PER_SECOND = 100;

  static ProcessSample of(long pid) throws IOException {
    long cpu = cpuTicks(Path.of("/proc/" + pid + "/stat"));
    long rss = 0;
    int threads = 0;
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        rss = Long.parseLong(line.replaceAll("[^0-9]", ""));
      } else if (line.startsWith("Threads:")) {
        threads = Integer.parseInt(line.replaceAll("[^0-9]", ""));
      }
    }
    return new ProcessSample(cpu, jitTicks(pid), rss, threads);
  }

  /** User + system ticks from a process's or a thread's {@code stat} file. */
  private static long cpuTicks(Path stat) throws IOException {
    String line = Files.readString(stat);
    // Fields after the command name, which is in parentheses and may contain spaces.
    String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }

  /**
   * Ticks of the threads named "C1 CompilerThread…" or "C2 CompilerThread…" (15 characters kept).
   */
  private static long jitTicks(long pid) throws IOException {
    long ticks = 0;
    try (DirectoryStream<Path> tasks =
        Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
      for (Path task : tasks) {
        try {
          String comm = Files.readString(task.resolve("comm"));
          if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
            ticks += cpuTicks(task.resolve("stat"));
          }
        } catch (NoSuchFileException exited) {
          // The thread ended between the listing and the read.
        }
      }
    }
    return ticks;
  }

  /** Compiler-thread CPU microseconds spent between {@code earlier} and this sample. */
  double jitMicrosSince(ProcessSample earlier) {
    return (jitTicks - earlier.jitTicks) * 1e6 / CLOCK_TICKS_PER_SECOND;
  }

  /** CPU microseconds spent between {@code earlier} and this sample. */
  double cpuMicrosSince(ProcessSample earlier) {
    return (cpuTicks - earlier.cpuTicks) * 1e6 / CLOCK_TICKS_PER_SECOND;
  }
}
