package io.sluice.bench.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's CPU time, resident memory and thread count, read from {@code /proc/PID/stat} and
 * {@code /proc/PID/status} (Linux only). CPU time is user + system, in clock ticks of {@code
 * 1/CLK_TCK} s (100 Hz on Linux), so it is meaningful over runs of many seconds.
 */
record ProcessSample(long cpuTicks, long rssKib, int threads) {
  static final int CLOCK_TICKS_PER_SECOND = 100;

  static ProcessSample of(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    // Fields after the command name, which is in parentheses and may contain spaces.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long utime = Long.parseLong(fields[11]);
    long stime = Long.parseLong(fields[12]);
    long rss = 0;
    int threads = 0;
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        rss = Long.parseLong(line.replaceAll("[^0-9]", ""));
      } else if (line.startsWith("Threads:")) {
        threads = Integer.parseInt(line.replaceAll("[^0-9]", ""));
      }
    }
    return new ProcessSample(utime + stime, rss, threads);
  }

  /** CPU microseconds spent between {@code earlier} and this sample. */
  double cpuMicrosSince(ProcessSample earlier) {
    return (cpuTicks - earlier.cpuTicks) * 1e6 / CLOCK_TICKS_PER_SECOND;
  }
}
