package io.sluice.flow;

import io.sluice.flow.internal.stats.LiveStatistics;

/**
 * One resource's traffic in one complete second, as {@link FlowRegistry#readSeconds} hands it to a
 * {@link SecondsReader}: one instance refilled for every resource and second (so a reader of many
 * resources allocates nothing), valid only during the call it is passed to.
 */
public final class SecondCounts {
  private String resource;
  private long second;
  private final long[] fields = new long[LiveStatistics.READ_FIELDS];

  SecondCounts fill(String resource, long second, long[] from) {
    this.resource = resource;
    this.second = second;
    System.arraycopy(from, 0, fields, 0, fields.length);
    return this;
  }

  /** The resource's name. */
  public String resource() {
    return resource;
  }

  /** The second, on the registry's clock: {@link FlowRegistry#clockNanos()} / 1 s. */
  public long second() {
    return second;
  }

  /** Calls admitted. */
  public long passed() {
    return fields[LiveStatistics.READ_PASSED];
  }

  /** Calls rejected by a rule. */
  public long blocked() {
    return fields[LiveStatistics.READ_BLOCKED];
  }

  /** Calls released as failed. */
  public long failed() {
    return fields[LiveStatistics.READ_FAILED];
  }

  /** Completed calls that were timed (see {@link WindowStatistics#timedCompletions()}). */
  public long timedCompletions() {
    return fields[LiveStatistics.READ_TIMED];
  }

  /** Mean response time of the timed calls, 0 when none completed. */
  public long averageRtNanos() {
    long timed = timedCompletions();
    return timed == 0 ? 0 : fields[LiveStatistics.READ_RT_SUM] / timed;
  }

  /** Median response time of the timed calls (within about ±12 %), 0 when none completed. */
  public long p50Nanos() {
    return fields[LiveStatistics.READ_P50];
  }

  /** 99th percentile response time of the timed calls, 0 when none completed. */
  public long p99Nanos() {
    return fields[LiveStatistics.READ_P99];
  }

  /**
   * Calls admitted and not yet released when the resource's statistics last sampled their counters
   * (within the last 100 ms of a busy resource; exact for one with nothing counted in the second).
   */
  public long concurrency() {
    return fields[LiveStatistics.READ_IN_FLIGHT];
  }

  @Override
  public String toString() {
    return resource
        + "@"
        + second
        + "{passed="
        + passed()
        + ", blocked="
        + blocked()
        + ", failed="
        + failed()
        + ", timed="
        + timedCompletions()
        + ", avgRtNanos="
        + averageRtNanos()
        + ", p50Nanos="
        + p50Nanos()
        + ", p99Nanos="
        + p99Nanos()
        + ", concurrency="
        + concurrency()
        + "}";
  }
}
