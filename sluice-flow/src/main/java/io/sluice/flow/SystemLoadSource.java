package io.sluice.flow;

import java.lang.management.ManagementFactory;

/**
 * Where system rules read CPU usage and load average. Read at most once per sampling interval, off
 * the call path when the registry has an executor. Tests inject fixed values.
 */
public interface SystemLoadSource {

  /**
   * CPU usage in [0, 1], or a negative value when unknown (the CPU threshold is then not applied).
   */
  double cpuUsage();

  /** The one-minute load average, or a negative value when unknown. */
  double loadAverage();

  /**
   * The JVM's view: the larger of the system and process CPU load, and the system load average. The
   * management classes are touched only when this source is first read.
   */
  static SystemLoadSource operatingSystem() {
    return new SystemLoadSource() {
      @Override
      public double cpuUsage() {
        java.lang.management.OperatingSystemMXBean os =
            ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
          return Math.max(sun.getCpuLoad(), sun.getProcessCpuLoad());
        }
        return -1;
      }

      @Override
      public double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      }
    };
  }
}
