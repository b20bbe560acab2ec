package io.sluice.bench.agent;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A process's CPU time, resident memory and thread count, read from {@code /proc/PID/stat} and
 * {@code /proc/PID/status} (Linux only), and each of its threads' CPU time from {@code
 * /proc/PID/task}. CPU time is user + system, in clock ticks of {@code 1/CLK_TCK} s (100 Hz on
 * Linux), so it is meaningful over runs of many seconds.
 *
 * <p>Threads are grouped by name with every run of digits replaced by {@code #} (the kernel keeps
 * the first 15 characters of a Java thread's name): {@code reactor-http-epoll-2} counts as {@code
 * reactor-http-ep}, Tomcat's {@code http-nio-auto-1-exec-7} as {@code http-nio-auto-#}, the JIT's
 * compiler threads as {@code C# CompilerThre}. The JIT's share is read apart because, on a machine
 * where many JVMs share two cores, compiling goes on for minutes and lands in whichever window it
 * falls.
 */
record ProcessSample(long cpuTicks, long rssKib, int threads, Map<Long, ThreadTicks> tasks) {
  static final int CLOCK_TICKS_PER_SECOND = 100;

  /** The group of threads a window's CPU of threads gone by its end is counted in. */
  static final String ENDED = "(threads that ended)";

  /** One thread's group and CPU ticks. */
  record ThreadTicks(String group, long ticks) {}

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
    return new ProcessSample(cpu, rss, threads, tasks(pid));
  }

  /** User + system ticks from a process's or a thread's {@code stat} file. */
  private static long cpuTicks(Path stat) throws IOException {
    String line = Files.readString(stat);
    // Fields after the command name, which is in parentheses and may contain spaces.
    String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }

  private static Map<Long, ThreadTicks> tasks(long pid) throws IOException {
    Map<Long, ThreadTicks> tasks = new HashMap<>();
    try (DirectoryStream<Path> all = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
      for (Path task : all) {
        try {
          String comm = Files.readString(task.resolve("comm")).strip();
          tasks.put(
              Long.parseLong(task.getFileName().toString()),
              new ThreadTicks(group(comm), cpuTicks(task.resolve("stat"))));
        } catch (NoSuchFileException ended) {
          // The thread ended between the listing and the read.
        }
      }
    }
    return tasks;
  }

  static String group(String threadName) {
    return threadName.replaceAll("[0-9]+", "#");
  }

  /** CPU microseconds spent between {@code earlier} and this sample. */
  double cpuMicrosSince(ProcessSample earlier) {
    return (cpuTicks - earlier.cpuTicks) * 1e6 / CLOCK_TICKS_PER_SECOND;
  }

  /**
   * CPU microseconds spent between {@code earlier} and this sample, per thread group; the CPU of
   * threads that ended in between under {@link #ENDED}.
   */
  Map<String, Double> groupMicrosSince(ProcessSample earlier) {
    Map<String, Double> groups = new TreeMap<>();
    long counted = 0;
    for (Map.Entry<Long, ThreadTicks> task : tasks.entrySet()) {
      ThreadTicks before = earlier.tasks.get(task.getKey());
      long now = task.getValue().ticks();
      // A thread started since (or an ended one's id reused) counts from zero.
      long ticks = before == null || before.ticks() > now ? now : now - before.ticks();
      counted += ticks;
      groups.merge(task.getValue().group(), ticks * 1e6 / CLOCK_TICKS_PER_SECOND, Double::sum);
    }
    long ended = (cpuTicks - earlier.cpuTicks) - counted;
    if (ended > 0) {
      groups.put(ENDED, ended * 1e6 / CLOCK_TICKS_PER_SECOND);
    }
    return groups;
  }

  /** Compiler-thread CPU microseconds spent between {@code earlier} and this sample. */
  double jitMicrosSince(ProcessSample earlier) {
    return groupMicrosSince(earlier).entrySet().stream()
        .filter(g -> g.getKey().endsWith("CompilerThre"))
        .mapToDouble(Map.Entry::getValue)
        .sum();
  }
}
