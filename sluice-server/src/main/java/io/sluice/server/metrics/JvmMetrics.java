package io.sluice.server.metrics;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.RuntimeMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The JVM's and the process's own figures, read from the platform MXBeans at scrape time, under the
 * names Prometheus's Java client gives them ({@code jvm_memory_bytes_used}, {@code
 * jvm_gc_collection_seconds}, {@code process_cpu_seconds_total}, ...), so dashboards made for it
 * work unchanged.
 */
public final class JvmMetrics implements ServerMetrics.Collector {
  private static final Path PROC_STATUS = Path.of("/proc/self/status");

  @Override
  public void collect(PrometheusText out) {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    MemoryUsage heap = memory.getHeapMemoryUsage();
    MemoryUsage nonHeap = memory.getNonHeapMemoryUsage();
    out.family("jvm_memory_bytes_used", "gauge", "Used bytes of a given JVM memory area")
        .sample("jvm_memory_bytes_used", heap.getUsed(), "area", "heap")
        .sample("jvm_memory_bytes_used", nonHeap.getUsed(), "area", "nonheap");
    out.family("jvm_memory_bytes_committed", "gauge", "Committed bytes of a given JVM memory area")
        .sample("jvm_memory_bytes_committed", heap.getCommitted(), "area", "heap")
        .sample("jvm_memory_bytes_committed", nonHeap.getCommitted(), "area", "nonheap");
    out.family("jvm_memory_bytes_max", "gauge", "Max bytes of a given JVM memory area (-1: none)")
        .sample("jvm_memory_bytes_max", heap.getMax(), "area", "heap")
        .sample("jvm_memory_bytes_max", nonHeap.getMax(), "area", "nonheap");

    List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans();
    out.family("jvm_memory_pool_bytes_used", "gauge", "Used bytes of a given JVM memory pool");
    for (MemoryPoolMXBean pool : pools) {
      MemoryUsage usage = pool.getUsage();
      if (usage != null) {
        out.sample("jvm_memory_pool_bytes_used", usage.getUsed(), "pool", pool.getName());
      }
    }
    out.family(
        "jvm_buffer_pool_used_bytes",
        "gauge",
        "Used bytes of a given JVM buffer pool (direct, mapped)");
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      out.sample("jvm_buffer_pool_used_bytes", pool.getMemoryUsed(), "pool", pool.getName());
    }

    out.family(
        "jvm_gc_collection_seconds", "summary", "Time spent in a given JVM garbage collector");
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      out.sample("jvm_gc_collection_seconds_count", gc.getCollectionCount(), "gc", gc.getName());
      out.sample("jvm_gc_collection_seconds_sum", gc.getCollectionTime() / 1e3, "gc", gc.getName());
    }

    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    out.gauge("jvm_threads_current", "Current thread count of the JVM", threads.getThreadCount());
    out.gauge(
        "jvm_threads_daemon", "Daemon thread count of the JVM", threads.getDaemonThreadCount());
    out.gauge("jvm_threads_peak", "Peak thread count of the JVM", threads.getPeakThreadCount());
    ClassLoadingMXBean classes = ManagementFactory.getClassLoadingMXBean();
    out.gauge(
        "jvm_classes_currently_loaded",
        "The number of classes currently loaded in the JVM",
        classes.getLoadedClassCount());

    RuntimeMXBean runtime = ManagementFactory.getRuntimeMXBean();
    out.family("jvm_info", "gauge", "The JVM's version and vendor")
        .sample(
            "jvm_info",
            1,
            "version",
            String.valueOf(runtime.getVmVersion()),
            "vendor",
            String.valueOf(runtime.getVmVendor()),
            "runtime",
            String.valueOf(runtime.getVmName()));
    out.gauge(
        "process_start_time_seconds",
        "Start time of the process since the Unix epoch, in seconds",
        runtime.getStartTime() / 1e3);
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      out.counter(
          "process_cpu_seconds_total",
          "User and system CPU time spent, in seconds",
          sun.getProcessCpuTime() / 1e9);
    }
    if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
      out.gauge(
          "process_open_fds", "Number of open file descriptors", unix.getOpenFileDescriptorCount());
      out.gauge(
          "process_max_fds",
          "Maximum number of open file descriptors",
          unix.getMaxFileDescriptorCount());
    }
    long rss = residentBytes();
    if (rss >= 0) {
      out.gauge("process_resident_memory_bytes", "Resident memory size in bytes", rss);
    }
  }

  /** VmRSS from /proc (Linux), or -1 where there is none. */
  private static long residentBytes() {
    try {
      for (String line : Files.readAllLines(PROC_STATUS)) {
        if (line.startsWith("VmRSS:")) {
          String[] words = line.substring(6).trim().split("\\s+");
          return Long.parseLong(words[0]) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }
}
