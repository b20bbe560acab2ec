package io.sluice.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Reads what Linux says a process (or several, summed) has used: CPU time (user + system, all
 * threads) from {@code /proc/PID/stat}, resident memory and thread count from {@code
 * /proc/PID/status}. A probe of a process that is not there, or of a system without {@code /proc},
 * reads as unknown (-1) rather than failing the run.
 */
final class ProcessProbe {
  private static final long CLOCK_TICKS_PER_SECOND = clockTicks();

  private final long[] pids;

  ProcessProbe(long pid) {
    this(new long[] {pid});
  }

  /** Several processes read as one (the nodes of a cluster): CPU, RSS and threads are summed. */
  ProcessProbe(long[] pids) {
    if (pids.length == 0) {
      throw new IllegalArgumentException("no process to probe");
    }
    this.pids = pids.clone();
  }

  static ProcessProbe self() {
    return new ProcessProbe(ProcessHandle.current().pid());
  }

  long pid() {
    return pids[0];
  }

  /** One reading. {@code cpuNanos}, {@code rssBytes} and {@code threads} are -1 when unknown. */
  record Sample(long cpuNanos, long rssBytes, int threads) {
    double cpuSecondsSince(Sample before) {
      if (cpuNanos < 0 || before.cpuNanos < 0) {
        return Double.NaN;
      }
      return (cpuNanos - before.cpuNanos) / 1e9;
    }
  }

  Sample sample() {
    long cpu = 0;
    long rss = 0;
    int threads = 0;
    for (long pid : pids) {
      long c = cpuNanos(pid);
      long r = statusValue(pid, "VmRSS:");
      long t = statusValue(pid, "Threads:");
      cpu = c < 0 || cpu < 0 ? -1 : cpu + c;
      rss = r < 0 || rss < 0 ? -1 : rss + r * 1024;
      threads = t < 0 || threads < 0 ? -1 : threads + (int) t;
    }
    return new Sample(cpu, rss, threads);
  }

  private static long cpuNanos(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // The command name (field 2) is in parentheses and may contain spaces: count from after it.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
      return ticks * TimeUnit.SECONDS.toNanos(1) / CLOCK_TICKS_PER_SECOND;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** A {@code kB} or count value of {@code /proc/PID/status}, -1 when unknown. */
  private static long statusValue(long pid, String key) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith(key)) {
          return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // unknown
    }
    return -1;
  }

  private static long clockTicks() {
    try {
      Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(getconf.getInputStream().readAllBytes()).trim();
      if (getconf.waitFor(5, TimeUnit.SECONDS) && getconf.exitValue() == 0) {
        return Long.parseLong(out);
      }
    } catch (IOException | RuntimeException e) {
      // fall through to the Linux default
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 100;
  }

  /**
   * Pins every thread of the process to {@code cpus} (a {@code taskset} list such as {@code 0} or
   * {@code 0-1}); threads it starts later inherit the mask from their creator.
   */
  void pin(String cpus) throws IOException, InterruptedException {
    for (long pid : pids) {
      Process taskset =
          new ProcessBuilder("taskset", "-a", "-p", "-c", cpus, Long.toString(pid))
              .redirectErrorStream(true)
              .start();
      String out = new String(taskset.getInputStream().readAllBytes());
      if (!taskset.waitFor(10, TimeUnit.SECONDS) || taskset.exitValue() != 0) {
        throw new IOException("taskset -a -p -c " + cpus + " " + pid + " failed: " + out.trim());
      }
    }
  }
}
