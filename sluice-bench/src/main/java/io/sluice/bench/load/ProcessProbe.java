package io.sluice.bench.load;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Reads what Linux says a process (or several, summed) has used: CPU time (user + system, all
 * threads) from {@code /proc/PID/stat}, the part of it the JVM's C1 and C2 compiler threads spent
 * (from {@code /proc/PID/task}), resident memory and thread count from {@code /proc/PID/status}. A
 * probe of a process that is not there, or of a system without {@code /proc}, reads as unknown (-1)
 * rather than failing the run.
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
  record Sample(long cpuNanos, long jitNanos, long rssBytes, int threads) {
    double cpuSecondsSince(Sample before) {
      return secondsBetween(before.cpuNanos, cpuNanos);
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
    for (long pid : pids) {
      long c = cpuNanos(Path.of("/proc", Long.toString(pid), "stat"));
      long j = compilerNanos(pid);
      long r = statusValue(pid, "VmRSS:");
      long t = statusValue(pid, "Threads:");
      cpu = c < 0 || cpu < 0 ? -1 : cpu + c;
      jit = j < 0 || jit < 0 ? -1 : jit + j;
      rss = r < 0 || rss < 0 ? -1 : rss + r * 1024;
      threads = t < 0 || threads < 0 ? -1 : threads + (int) t;
    }
    return new Sample(cpu, jit, rss, threads);
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
   * CPU time of the threads named "C1 CompilerThread…" or "C2 CompilerThread…" (Linux keeps 15
   * characters), -1 when unknown. A thread that ends between the listing and the read counts 0.
   */
  private static long compilerNanos(long pid) {
    long nanos = 0;
    try (DirectoryStream<Path> tasks =
        Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks) {
        String comm;
        try {
          comm = Files.readString(task.resolve("comm"));
        } catch (IOException exited) {
          continue;
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
