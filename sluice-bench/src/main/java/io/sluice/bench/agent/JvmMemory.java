package io.sluice.bench.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a JVM's memory is, as the JVM itself accounts for it: Native Memory Tracking's committed
 * memory per category ({@code jcmd PID VM.native_memory summary}; the JVM must run with {@code
 * -XX:NativeMemoryTracking=summary}), then the Java heap in use right after a full collection
 * ({@code GC.run}, {@code GC.heap_info}), and the RSS the kernel counts. A category's committed
 * memory is what the JVM asked the OS for: the heap (fixed and pre-touched in the chain benchmark,
 * so the same in every copy), classes and metaspace, compiled code, thread stacks, GC structures,
 * and "Other", where direct byte buffers (Netty's pools) land. RSS beyond the committed total is
 * memory NMT does not see: malloc's arenas keeping freed memory, and mapped files (jars, the JDK's
 * class data).
 *
 * <p>It runs {@code jcmd} once (a JVM of its own, about a second of CPU): read it between measured
 * windows, never inside one. The full collection changes nothing the windows measure (the heap is
 * fixed), but it does cost the target one collection.
 */
record JvmMemory(
    long rssKib,
    long committedKib,
    Map<String, Long> committedKibByCategory,
    long heapUsedAfterGcKib,
    String unavailable) {
  private static final Pattern TOTAL =
      Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB");
  private static final Pattern CATEGORY =
      Pattern.compile("^-\\s+(.+?) \\(reserved=(\\d+)KB, committed=(\\d+)KB\\)", Pattern.MULTILINE);
  private static final Pattern HEAP_SPACE =
      Pattern.compile("(?:generation|heap)\\s+total \\d+K, used (\\d+)K");

  /** Reads {@code pid}'s memory with the {@code jcmd} of {@code javaHome}. */
  static JvmMemory read(Path javaHome, long pid, Path scratch)
      throws IOException, InterruptedException {
    long rss = ProcessSample.of(pid).rssKib();
    Path commands = Files.createTempFile(scratch, "jcmd", ".txt");
    Files.writeString(commands, "VM.native_memory summary\nGC.run\nGC.heap_info\n");
    Path output = Files.createTempFile(scratch, "jcmd", ".out");
    try {
      Process jcmd =
          new ProcessBuilder(
                  javaHome.resolve("bin/jcmd").toString(),
                  Long.toString(pid),
                  "-f",
                  commands.toString())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!jcmd.waitFor(60, TimeUnit.SECONDS)) {
        jcmd.destroyForcibly();
        return new JvmMemory(rss, 0, Map.of(), -1, "jcmd did not answer within 60 s");
      }
      return parse(rss, Files.readString(output));
    } finally {
      Files.deleteIfExists(commands);
      Files.deleteIfExists(output);
    }
  }

  /** From {@code jcmd}'s output of the three commands above. */
  static JvmMemory parse(long rssKib, String jcmd) {
    long heapUsed = -1;
    Matcher heap = HEAP_SPACE.matcher(jcmd);
    while (heap.find()) {
      heapUsed = Math.max(0, heapUsed) + Long.parseLong(heap.group(1));
    }
    Matcher total = TOTAL.matcher(jcmd);
    if (!total.find()) {
      String why =
          jcmd.contains("Native memory tracking is not enabled")
              ? "Native Memory Tracking is off (-XX:NativeMemoryTracking=summary in --jvm-options)"
              : "no NMT summary in jcmd's answer: " + jcmd.strip().lines().findFirst().orElse("");
      return new JvmMemory(rssKib, 0, Map.of(), heapUsed, why);
    }
    Map<String, Long> categories = new LinkedHashMap<>();
    Matcher category = CATEGORY.matcher(jcmd);
    while (category.find()) {
      categories.put(category.group(1).strip(), Long.parseLong(category.group(3)));
    }
    return new JvmMemory(rssKib, Long.parseLong(total.group(2)), categories, heapUsed, null);
  }

  /** RSS beyond what NMT counts as committed (malloc's retained memory, mapped files). */
  long outsideNmtKib() {
    return rssKib - committedKib;
  }
}
