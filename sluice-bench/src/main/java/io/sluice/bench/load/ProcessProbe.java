package io.sluice.bench.load;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Reads what Linux says a process (or several, summed) has used: CPU time (user + system, all
 * threads) from {@code /proc/PID/stat}, the part of it the JVM's C1 and C2 compiler threads spent
 * (from {@code /proc/PID/task}), its threads' wake-ups (voluntary context switches, each a return
 * from a blocking wait, from {@code /proc/PID/task/TID/status}), resident memory and thread count
 * from {@code /proc/PID/status}. A probe of a process that is not there, or of a system without
 * {@code /proc}, reads as unknown (-1) rather than failing the run.
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

  /**
   * One reading. {@code cpuNanos}, {@code jitNanos} (compiler threads, part of {@code cpuNanos}),
   * {@code rssBytes} and {@code threads} are -1 when unknown.
   */
  record Sample(
      long cpuNanos, long jitNanos, long rssBytes, int threads, Map<Long, Long> wakeupsByThread) {
    double cpuSecondsSince(Sample before) {
      return secondsBetween(before.cpuNanos, cpuNanos);
    }

    /**
     * Wake-ups since {@code before}, summed over the threads alive now (a thread started since
     * counts from 0; one that ended in between is missing, so this can only undercount); -1 when
     * unknown.
     */
    long wakeupsSince(Sample before) {
      if (wakeupsByThread == null || before.wakeupsByThread == null) {
        return -1;
      }
      long sum = 0;
      for (Map.Entry<Long, Long> now : wakeupsByThread.entrySet()) {
        sum += now.getValue() - before.wakeupsByThread.getOrDefault(now.getKey(), 0L);
      }
      return sum;
    }

    double jitSecondsSince(Sample before) {
      return secondsBetween(before.jitNanos, jitNanos);
    }

    private static double secondsBetween(long before, long after) {
      return before < 0 || after < 0 ? Double.NaN : (after - before) / 1e9;
    }
  }

  Sample sample() {
    long cpu = 0;
    long jit = 0;
    long rss = 0;
    int threads = 0;
    Map<Long, Long> wakeups = new HashMap<>();
    for (long pid : pids) {
      long c = cpuNanos(Path.of("/proc", Long.toString(pid), "stat"));
      long j = threadsOf(pid, wakeups);
      long r = statusValue(pid, "VmRSS:");
      long t = statusValue(pid, "Threads:");
      cpu = c < 0 || cpu < 0 ? -1 : cpu + c;
      jit = j < 0 || jit < 0 ? -1 : jit + j;
      rss = r < 0 || rss < 0 ? -1 : rss + r * 1024;
      threads = t < 0 || threads < 0 ? -1 : threads + (int) t;
      if (j < 0) {
        wakeups = null;
      }
    }
    return new Sample(cpu, jit, rss, threads, wakeups);
  }

  /** User + system time from a process's or a thread's {@code stat} file, -1 when unknown. */
  private static long cpuNanos(Path stat) {
    try {
      String line = Files.readString(stat);
      // The command name (field 2) is in parentheses and may contain spaces: count from after it.
      String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
      return ticks * TimeUnit.SECONDS.toNanos(1) / CLOCK_TICKS_PER_SECOND;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * One pass over a process's threads: returns the CPU time of those named "C1 CompilerThread…" or
   * "C2 CompilerThread…" (Linux keeps 15 characters), -1 when unknown, and puts each thread's
   * wake-ups into {@code wakeups}. A thread that ends between the listing and the read is skipped.
   */
  private static long threadsOf(long pid, Map<Long, Long> wakeups) {
    long nanos = 0;
    try (DirectoryStream<Path> tasks =
        Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks) {
        String comm;
        long voluntary;
        try {
          comm = Files.readString(task.resolve("comm"));
          voluntary = statusValue(task.resolve("status"), "voluntary_ctxt_switches:");
        } catch (IOException exited) {
          continue;
        }
        if (voluntary >= 0 && wakeups != null) {
          wakeups.put(Long.parseLong(task.getFileName().toString()), voluntary);
        }
        if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
          nanos += Math.max(0, cpuNanos(task.resolve("stat")));
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return nanos;
  }

  /** A {@code kB} or count value of {@code /proc/PID/status}, -1 when unknown. */
  private static long statusValue(long pid, String key) {
    try {
      return statusValue(Path.of("/proc", Long.toString(pid), "status"), key);
    } catch (IOException e) {
      return -1;
    }
  }

  /** A value of a {@code status} file, -1 when absent or unreadable as a number. */
  private static long statusValue(Path status, String key) throws IOException {
    for (String line : Files.readAllLines(status)) {
      if (line.startsWith(key)) {
        try {
          return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]);
        } catch (RuntimeException e) {
          return -1;
        }
      }
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
