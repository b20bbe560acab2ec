package io.sluice.flow.internal.stats;

import io.sluice.flow.ResourceStatistics;
import io.sluice.flow.WindowStatistics;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One resource's display statistics: what the console and exporters show. It is never consulted for
 * admission (rules keep their own exact state), so it can be cheap and slightly loose.
 *
 * <p><b>Writers</b> (any thread, no lock, no allocation) only add to cumulative counters: passed,
 * blocked, failed and untimed calls, the response-time sum, a latency histogram, and the largest
 * response time of the current 100 ms tick. There is no per-call window rotation.
 *
 * <p><b>Timing.</b> Reading the clock at release costs as much as the rest of a call, so a call is
 * timed only when a rule needs its response time, or when {@link #claimTimedSample} lets it: at
 * most one call per {@value #TIMED_SAMPLE_GAP_NANOS} ns per resource, which is every call up to
 * 100,000 calls per second. Counts are exact; the RT sum, mean, maximum and percentiles describe
 * the timed calls (all of them at moderate rates, a sample above).
 *
 * <p><b>Ticks.</b> Windows are built from 100 ms ticks of the caller's clock. The first writer of a
 * new tick wins a CAS on {@code sampledTick} and files the counters' growth since the previous
 * sample under the tick in which that growth happened (all of it happened in that tick: any call in
 * a later tick would have sampled first). Ticks with no calls are filed as empty. A tick's growth
 * goes into four rings: 100 ms slots (the last second), 1 s slots (the last minute), 10 s histogram
 * slots (minute percentiles) and 1 s histogram slots for the last few seconds (what a reader of
 * whole seconds, {@link #readSecond}, takes percentiles from without adding up ticks). Readers add
 * the live growth of the last sampled tick themselves, so an idle resource's windows are right
 * without any background thread.
 *
 * <p><b>Readers</b> copy without locking. Only the sampling writer writes the rings; a reader
 * racing with it, or a writer adding during a sample, can be off by the calls in that instant.
 * Memory: about 1 KB of counters, plus about 16 KB of rings allocated at the first sample. The
 * total's largest response time covers only the last minute.
 */
public final class LiveStatistics {

  /** Length of a sub-window. */
  public static final long TICK_NANOS = 100_000_000L;

  /** At most one sampled (timed) call per this many ns per resource. */
  public static final long TIMED_SAMPLE_GAP_NANOS = 10_000L;

  private static final int TICKS_PER_SECOND = 10;
  private static final int TICKS_PER_HISTOGRAM_SLOT = 100;
  private static final int TICK_SLOTS = TICKS_PER_SECOND + 1;
  private static final int SECOND_SLOTS = 61;
  private static final int HISTOGRAM_SLOTS = 7;
  private static final int SECOND_HISTOGRAM_SLOTS = 4;

  /**
   * How many complete seconds before the current one {@link #readSecond} can read: the per-second
   * histograms are kept for these and the second being counted.
   */
  public static final int SECONDS_READABLE = SECOND_HISTOGRAM_SLOTS - 1;

  /** Fields {@link #readSecond} writes, by index. */
  public static final int READ_PASSED = 0;

  public static final int READ_BLOCKED = 1;
  public static final int READ_FAILED = 2;
  public static final int READ_TIMED = 3;
  public static final int READ_RT_SUM = 4;
  public static final int READ_P50 = 5;
  public static final int READ_P99 = 6;
  public static final int READ_IN_FLIGHT = 7;
  public static final int READ_FIELDS = 8;

  private static final int PASSED = 0;
  private static final int BLOCKED = 1;
  private static final int FAILED = 2;
  private static final int RT_SUM = 3;
  private static final int RT_MAX = 4;
  private static final int UNTIMED = 5;
  private static final int FIELDS = 6;
  private static final int BUCKETS = LatencyHistogram.BUCKETS;

  private static final VarHandle PASSED_COUNT;
  private static final VarHandle BLOCKED_COUNT;
  private static final VarHandle FAILED_COUNT;
  private static final VarHandle RT_SUM_NANOS;
  private static final VarHandle TICK_MAX_RT;
  private static final VarHandle UNTIMED_COUNT;
  private static final VarHandle NEXT_TIMED_AT;
  private static final VarHandle SAMPLED_TICK;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      PASSED_COUNT = lookup.findVarHandle(LiveStatistics.class, "passedCount", long.class);
      BLOCKED_COUNT = lookup.findVarHandle(LiveStatistics.class, "blockedCount", long.class);
      FAILED_COUNT = lookup.findVarHandle(LiveStatistics.class, "failedCount", long.class);
      RT_SUM_NANOS = lookup.findVarHandle(LiveStatistics.class, "rtSumNanos", long.class);
      TICK_MAX_RT = lookup.findVarHandle(LiveStatistics.class, "tickMaxRt", long.class);
      UNTIMED_COUNT = lookup.findVarHandle(LiveStatistics.class, "untimedCount", long.class);
      NEXT_TIMED_AT = lookup.findVarHandle(LiveStatistics.class, "nextTimedAt", long.class);
      SAMPLED_TICK = lookup.findVarHandle(LiveStatistics.class, "sampledTick", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final String resource;

  // Cumulative counters: any thread adds.
  private volatile long passedCount;
  private volatile long blockedCount;
  private volatile long failedCount;
  private volatile long rtSumNanos;
  private volatile long tickMaxRt;
  private volatile long untimedCount;
  private long nextTimedAt = Long.MIN_VALUE;
  private final AtomicLongArray histogram = new AtomicLongArray(BUCKETS);
  private volatile long sampledTick = -1;

  // Written only by the writer that won the tick CAS; read by snapshot readers.
  private volatile Rings rings;

  // Written and read only by the one thread reading whole seconds (readSecond).
  private long quietSince = Long.MIN_VALUE;

  public LiveStatistics(String resource) {
    this.resource = resource;
  }

  /** Counts an admitted call at {@code now}. */
  public void recordPass(long now) {
    sampleIfNewTick(now);
    PASSED_COUNT.getAndAdd(this, 1L);
  }

  /** Counts a rejected call at {@code now}. */
  public void recordBlock(long now) {
    sampleIfNewTick(now);
    BLOCKED_COUNT.getAndAdd(this, 1L);
  }

  /**
   * Whether a call entering at {@code now} should be timed for the statistics: true for at most one
   * call per {@link #TIMED_SAMPLE_GAP_NANOS}. Racing callers may both win; that only times a call
   * more.
   */
  public boolean claimTimedSample(long now) {
    if (now < (long) NEXT_TIMED_AT.getOpaque(this)) {
      return false;
    }
    NEXT_TIMED_AT.setOpaque(this, now + TIMED_SAMPLE_GAP_NANOS);
    return true;
  }

  /**
   * Counts a completed call: its response time ({@code < 0} for an untimed call) and whether it
   * failed.
   */
  public void recordCompletion(long rtNanos, boolean failed) {
    if (failed) {
      FAILED_COUNT.getAndAdd(this, 1L);
    }
    if (rtNanos < 0) {
      UNTIMED_COUNT.getAndAdd(this, 1L);
      return;
    }
    histogram.getAndIncrement(LatencyHistogram.bucketOf(rtNanos));
    RT_SUM_NANOS.getAndAdd(this, rtNanos);
    long max = tickMaxRt;
    while (rtNanos > max) {
      long seen = (long) TICK_MAX_RT.compareAndExchange(this, max, rtNanos);
      if (seen == max) {
        break;
      }
      max = seen;
    }
  }

  /** Calls admitted since the statistics began. */
  public long passedTotal() {
    return passedCount;
  }

  /** Calls admitted minus calls completed: the calls in flight. */
  public long inFlight() {
    long completed = untimedCount;
    for (int b = 0; b < BUCKETS; b++) {
      completed += histogram.get(b);
    }
    return Math.max(0, passedCount - completed);
  }

  private void sampleIfNewTick(long now) {
    long tick = now / TICK_NANOS;
    long last = sampledTick;
    if (tick > last && SAMPLED_TICK.compareAndSet(this, last, tick)) {
      sample(last, tick);
    }
  }

  /** Files the growth since the previous sample under {@code previousTick}; see the class doc. */
  private void sample(long previousTick, long tick) {
    Rings r = rings;
    if (r == null) {
      r = new Rings();
      rings = r;
    }
    long[] seen = r.lastSeen;
    long rtMax = (long) TICK_MAX_RT.getAndSet(this, 0L);
    if (previousTick < 0) {
      readCumulative(seen);
      long completed = seen[UNTIMED];
      for (int b = 0; b < BUCKETS; b++) {
        completed += seen[FIELDS + b];
      }
      r.completedSeen = completed;
      return;
    }
    int slot = (int) Math.floorMod(previousTick, (long) TICK_SLOTS);
    long[] counts = r.tickCounts[slot];
    int[] buckets = r.tickHistograms[slot];
    counts[PASSED] = grow(seen, PASSED, passedCount);
    counts[BLOCKED] = grow(seen, BLOCKED, blockedCount);
    counts[FAILED] = grow(seen, FAILED, failedCount);
    counts[RT_SUM] = grow(seen, RT_SUM, rtSumNanos);
    counts[UNTIMED] = grow(seen, UNTIMED, untimedCount);
    counts[RT_MAX] = rtMax;
    long timed = 0;
    for (int b = 0; b < BUCKETS; b++) {
      long current = histogram.get(b);
      timed += current;
      buckets[b] = (int) Math.min(Integer.MAX_VALUE, grow(seen, FIELDS + b, current));
    }
    r.completedSeen = seen[UNTIMED] + timed;
    r.tickOf[slot] = previousTick;
    r.fileInMinute(previousTick, counts, buckets);
  }

  /** The growth of one cumulative counter since the last sample, remembering the new value. */
  private static long grow(long[] seen, int index, long current) {
    long growth = Math.max(0, current - seen[index]);
    seen[index] = current;
    return growth;
  }

  /**
   * Reads complete second {@code second} (of the caller's clock: ns / 1 s) into {@code into} at the
   * {@code READ_*} indexes, allocating nothing: the counts, the timed completions and their RT sum,
   * p50 and p99 (ns), and the calls in flight when last sampled. Returns false, leaving {@code
   * into} as it was, when nothing was counted in that second and no call is in flight, or when the
   * second is not one of the last {@link #SECONDS_READABLE} complete ones before {@code now}.
   *
   * <p>For one reader thread (it keeps a little state of its own to skip quiet resources fast). It
   * changes nothing the writers or other readers see: what was counted in the last sampled tick is
   * added from the live counters, as {@link #snapshot} does. An idle resource costs two reads.
   *
   * @param scratch {@link LatencyHistogram#BUCKETS} longs the reader lends, overwritten
   */
  public boolean readSecond(long second, long now, long[] into, long[] scratch) {
    long sampled = sampledTick;
    long current = now / TICK_NANOS / TICKS_PER_SECOND;
    if (sampled < 0 || second >= current || second < current - SECONDS_READABLE) {
      return false;
    }
    Rings r = rings;
    if (r == null) {
      return false; // the first sample is being taken
    }
    long sampledSecond = sampled / TICKS_PER_SECOND;
    if (sampledSecond < second) {
      // Nothing counted in or after this second: only calls still in flight can be reported.
      return second == current - 1 && inFlightWhileQuiet(r, sampled, into);
    }
    int s = (int) Math.floorMod(second, (long) SECOND_SLOTS);
    int h = (int) Math.floorMod(second, (long) SECOND_HISTOGRAM_SLOTS);
    boolean filed = r.secondOf[s] == second && r.secondHistogramOf[h] == second;
    boolean live = sampledSecond == second;
    if (!filed && !live) {
      return false;
    }
    long[] counts = filed ? r.secondCounts[s] : null;
    int[] buckets = filed ? r.secondHistograms[h] : null;
    long passed = filed ? counts[PASSED] : 0;
    long blocked = filed ? counts[BLOCKED] : 0;
    long failed = filed ? counts[FAILED] : 0;
    long rtSum = filed ? counts[RT_SUM] : 0;
    long timed = filed ? r.secondTimed[h] : 0;
    long liveTimed = 0;
    long liveCompleted = 0;
    if (live) {
      // The last sampled tick lies in this second: add what was counted since its sample.
      long[] seen = r.lastSeen;
      passed += Math.max(0, passedCount - seen[PASSED]);
      blocked += Math.max(0, blockedCount - seen[BLOCKED]);
      failed += Math.max(0, failedCount - seen[FAILED]);
      rtSum += Math.max(0, rtSumNanos - seen[RT_SUM]);
      for (int b = 0; b < BUCKETS; b++) {
        long n = Math.max(0, histogram.get(b) - seen[FIELDS + b]);
        scratch[b] = n;
        liveTimed += n;
      }
      liveCompleted = liveTimed + Math.max(0, untimedCount - seen[UNTIMED]);
      timed += liveTimed;
    }
    if (passed == 0 && blocked == 0 && failed == 0 && timed == 0) {
      return second == current - 1 && inFlightWhileQuiet(r, sampled, into);
    }
    into[READ_PASSED] = passed;
    into[READ_BLOCKED] = blocked;
    into[READ_FAILED] = failed;
    into[READ_TIMED] = timed;
    into[READ_RT_SUM] = rtSum;
    // The two percentiles in one pass over the buckets, up to p99's.
    long rank50 = Math.max(1, (long) Math.ceil(0.5 * timed));
    long rank99 = Math.max(1, (long) Math.ceil(0.99 * timed));
    long p50 = 0;
    long p99 = 0;
    if (timed > 0) {
      long cumulative = 0;
      for (int b = 0; b < BUCKETS; b++) {
        cumulative += (buckets == null ? 0 : buckets[b]) + (liveTimed > 0 ? scratch[b] : 0);
        if (p50 == 0 && cumulative >= rank50) {
          p50 = LatencyHistogram.middle(b);
        }
        if (cumulative >= rank99) {
          p99 = LatencyHistogram.middle(b);
          break;
        }
      }
      if (p99 == 0) {
        p99 = LatencyHistogram.middle(BUCKETS - 1);
        p50 = p50 == 0 ? p99 : p50;
      }
    }
    into[READ_P50] = p50;
    into[READ_P99] = p99;
    long completedAtSample = r.completedSeen;
    into[READ_IN_FLIGHT] =
        Math.max(
            0,
            r.lastSeen[PASSED]
                + (live ? passedCount - r.lastSeen[PASSED] : 0)
                - completedAtSample
                - liveCompleted);
    return true;
  }

  /**
   * For a resource with nothing counted in the second read: true, with zero counts and the calls in
   * flight, while calls admitted before are still running. Computing them reads the whole
   * histogram, so once they are found to be none the resource is quiet until its next sample.
   */
  private boolean inFlightWhileQuiet(Rings r, long sampled, long[] into) {
    if (quietSince == sampled || passedCount <= r.completedSeen) {
      return false;
    }
    long inFlight = inFlight();
    if (inFlight == 0) {
      quietSince = sampled;
      return false;
    }
    into[READ_PASSED] = 0;
    into[READ_BLOCKED] = 0;
    into[READ_FAILED] = 0;
    into[READ_TIMED] = 0;
    into[READ_RT_SUM] = 0;
    into[READ_P50] = 0;
    into[READ_P99] = 0;
    into[READ_IN_FLIGHT] = inFlight;
    return true;
  }

  private void readCumulative(long[] into) {
    into[PASSED] = passedCount;
    into[BLOCKED] = blockedCount;
    into[FAILED] = failedCount;
    into[RT_SUM] = rtSumNanos;
    into[UNTIMED] = untimedCount;
    for (int b = 0; b < BUCKETS; b++) {
      into[FIELDS + b] = histogram.get(b);
    }
  }

  /**
   * Admitted calls in the last complete second before {@code now}: an allocation-free read for
   * rules that relate to this resource's traffic.
   */
  public long passedInLastSecond(long now) {
    long currentTick = now / TICK_NANOS;
    Rings r = rings;
    long sampled = sampledTick;
    if (r == null || sampled < 0) {
      return 0;
    }
    long sum = 0;
    for (long t = currentTick - TICKS_PER_SECOND; t < currentTick; t++) {
      if (t == sampled) {
        sum += passedCount - r.lastSeen[PASSED];
      } else if (t < sampled) {
        int slot = (int) Math.floorMod(t, (long) TICK_SLOTS);
        if (r.tickOf[slot] == t) {
          sum += r.tickCounts[slot][PASSED];
        }
      }
    }
    return Math.max(0, sum);
  }

  /**
   * The last complete second before {@code now}, summarised for system protection: completed calls
   * and their RT sum, the most completions in one 100 ms sub-window, and the shortest RT (the lower
   * bound of the lowest histogram bucket used).
   */
  public SecondSummary lastSecondSummary(long now) {
    long currentTick = now / TICK_NANOS;
    long sampled = sampledTick;
    Rings r = rings;
    if (r == null || sampled < 0) {
      return new SecondSummary(0, 0, 0, -1);
    }
    long[] live = new long[FIELDS + BUCKETS];
    readCumulative(live);
    for (int i = 0; i < live.length; i++) {
      live[i] = Math.max(0, live[i] - r.lastSeen[i]);
    }
    long timed = 0;
    long rtSum = 0;
    long maxPerTick = 0;
    int lowestBucket = BUCKETS;
    for (long t = currentTick - TICKS_PER_SECOND; t < currentTick; t++) {
      long[] data = tickData(r, sampled, live, t);
      long tickTimed = 0;
      for (int b = 0; b < BUCKETS; b++) {
        long n = data[FIELDS + b];
        if (n > 0) {
          tickTimed += n;
          lowestBucket = Math.min(lowestBucket, b);
        }
      }
      timed += tickTimed;
      rtSum += data[RT_SUM];
      maxPerTick = Math.max(maxPerTick, tickTimed + data[UNTIMED]);
    }
    long minRt = lowestBucket == BUCKETS ? -1 : LatencyHistogram.lowerBound(lowestBucket);
    return new SecondSummary(timed, rtSum, maxPerTick * TICKS_PER_SECOND, minRt);
  }

  /**
   * @param completed timed calls completed in the second
   * @param rtSumNanos their response times summed
   * @param maxCompletedPerSecond the busiest sub-window's completions, scaled to a second
   * @param minRtNanos the shortest response time seen (bucket lower bound), or -1 if none
   */
  public record SecondSummary(
      long completed, long rtSumNanos, long maxCompletedPerSecond, long minRtNanos) {}

  /** A snapshot of the windows ending before {@code now}. */
  public ResourceStatistics snapshot(long now, long concurrency) {
    long currentTick = now / TICK_NANOS;
    long sampled = sampledTick;
    Rings r = rings;
    long[] total = new long[FIELDS + BUCKETS];
    readCumulative(total);
    long[] live = live(r, sampled, total);

    List<WindowStatistics> subWindows = new ArrayList<>(TICKS_PER_SECOND);
    long[] second = new long[FIELDS + BUCKETS];
    for (long t = currentTick - TICKS_PER_SECOND; t < currentTick; t++) {
      long[] tickData = tickData(r, sampled, live, t);
      subWindows.add(window(tickData, (t + 1) * TICK_NANOS, TICK_NANOS));
      add(second, tickData);
    }

    long currentSecond = currentTick / TICKS_PER_SECOND;
    long[] minute = new long[FIELDS + BUCKETS];
    for (long s = currentSecond - 60; s < currentSecond; s++) {
      add(minute, secondData(r, sampled, live, s));
    }
    long currentSlot = currentTick / TICKS_PER_HISTOGRAM_SLOT;
    java.util.Arrays.fill(minute, FIELDS, FIELDS + BUCKETS, 0);
    for (long h = currentSlot - 6; h < currentSlot; h++) {
      long[] data = histogramData(r, sampled, live, h);
      for (int b = 0; b < BUCKETS; b++) {
        minute[FIELDS + b] += data[b];
      }
    }

    total[RT_MAX] = Math.max(minute[RT_MAX], live[RT_MAX]);
    long secondEnd = currentTick * TICK_NANOS;
    return new ResourceStatistics(
        resource,
        concurrency,
        window(second, secondEnd, TICKS_PER_SECOND * TICK_NANOS),
        List.copyOf(subWindows),
        window(minute, currentSecond * TICKS_PER_SECOND * TICK_NANOS, 60 * 1_000_000_000L),
        window(total, now, Math.max(1, now)));
  }

  /**
   * What was counted since the last sampled tick: the cumulative counts less what the rings saw.
   */
  private static long[] live(Rings r, long sampled, long[] total) {
    long[] live = new long[FIELDS + BUCKETS];
    if (r != null && sampled >= 0) {
      for (int i = 0; i < live.length; i++) {
        live[i] = i == RT_MAX ? total[i] : Math.max(0, total[i] - r.lastSeen[i]);
      }
    }
    return live;
  }

  private static long[] tickData(Rings r, long sampled, long[] live, long t) {
    if (r == null || sampled < 0 || t > sampled) {
      return new long[FIELDS + BUCKETS];
    }
    if (t == sampled) {
      return live;
    }
    long[] out = new long[FIELDS + BUCKETS];
    int slot = (int) Math.floorMod(t, (long) TICK_SLOTS);
    if (r.tickOf[slot] == t) {
      System.arraycopy(r.tickCounts[slot], 0, out, 0, FIELDS);
      int[] buckets = r.tickHistograms[slot];
      for (int b = 0; b < BUCKETS; b++) {
        out[FIELDS + b] = buckets[b];
      }
    }
    return out;
  }

  private static long[] secondData(Rings r, long sampled, long[] live, long s) {
    long[] out = new long[FIELDS + BUCKETS];
    if (r == null || sampled < 0) {
      return out;
    }
    int slot = (int) Math.floorMod(s, (long) SECOND_SLOTS);
    if (r.secondOf[slot] == s) {
      System.arraycopy(r.secondCounts[slot], 0, out, 0, FIELDS);
    }
    if (sampled / TICKS_PER_SECOND == s) {
      add(out, live);
    }
    return out;
  }

  private static long[] histogramData(Rings r, long sampled, long[] live, long h) {
    long[] out = new long[BUCKETS];
    if (r == null || sampled < 0) {
      return out;
    }
    int slot = (int) Math.floorMod(h, (long) HISTOGRAM_SLOTS);
    if (r.periodOf[slot] == h) {
      int[] buckets = r.periodHistograms[slot];
      for (int b = 0; b < BUCKETS; b++) {
        out[b] = buckets[b];
      }
    }
    if (sampled / TICKS_PER_HISTOGRAM_SLOT == h) {
      for (int b = 0; b < BUCKETS; b++) {
        out[b] += live[FIELDS + b];
      }
    }
    return out;
  }

  private static void add(long[] into, long[] data) {
    for (int i = 0; i < into.length && i < data.length; i++) {
      if (i == RT_MAX) {
        into[i] = Math.max(into[i], data[i]);
      } else {
        into[i] += data[i];
      }
    }
  }

  private static WindowStatistics window(long[] data, long end, long length) {
    long[] buckets = new long[BUCKETS];
    System.arraycopy(data, FIELDS, buckets, 0, BUCKETS);
    return new WindowStatistics(
        end,
        length,
        data[PASSED],
        data[BLOCKED],
        data[FAILED],
        data[UNTIMED],
        data[RT_SUM],
        data[RT_MAX],
        buckets);
  }

  /**
   * The rings; written only by the sampling writer. Histogram growth per tick or per 10 s fits an
   * {@code int} (it saturates rather than wraps), which halves their memory.
   */
  private static final class Rings {
    final long[] lastSeen = new long[FIELDS + BUCKETS];
    final long[][] tickCounts = new long[TICK_SLOTS][FIELDS];
    final int[][] tickHistograms = new int[TICK_SLOTS][BUCKETS];
    final long[] tickOf = filled(TICK_SLOTS);
    final long[][] secondCounts = new long[SECOND_SLOTS][FIELDS];
    final long[] secondOf = filled(SECOND_SLOTS);
    final int[][] periodHistograms = new int[HISTOGRAM_SLOTS][BUCKETS];
    final long[] periodOf = filled(HISTOGRAM_SLOTS);
    final int[][] secondHistograms = new int[SECOND_HISTOGRAM_SLOTS][BUCKETS];
    final long[] secondTimed = new long[SECOND_HISTOGRAM_SLOTS];
    final long[] secondHistogramOf = filled(SECOND_HISTOGRAM_SLOTS);

    /** Completions (timed and untimed) counted when the last sample was taken. */
    long completedSeen;

    private static long[] filled(int n) {
      long[] a = new long[n];
      java.util.Arrays.fill(a, Long.MIN_VALUE);
      return a;
    }

    /**
     * Adds one tick's growth to its second and its 10 s period. Ticks arrive in increasing order; a
     * slot whose tag is not the one asked for reads as empty, so idle time needs no filing.
     */
    void fileInMinute(long tick, long[] counts, int[] buckets) {
      long second = tick / TICKS_PER_SECOND;
      int s = (int) Math.floorMod(second, (long) SECOND_SLOTS);
      if (secondOf[s] != second) {
        java.util.Arrays.fill(secondCounts[s], 0);
        secondOf[s] = second;
      }
      long[] target = secondCounts[s];
      for (int i = 0; i < FIELDS; i++) {
        target[i] = i == RT_MAX ? Math.max(target[i], counts[i]) : target[i] + counts[i];
      }
      long period = tick / TICKS_PER_HISTOGRAM_SLOT;
      int h = (int) Math.floorMod(period, (long) HISTOGRAM_SLOTS);
      if (periodOf[h] != period) {
        java.util.Arrays.fill(periodHistograms[h], 0);
        periodOf[h] = period;
      }
      int sh = (int) Math.floorMod(second, (long) SECOND_HISTOGRAM_SLOTS);
      if (secondHistogramOf[sh] != second) {
        java.util.Arrays.fill(secondHistograms[sh], 0);
        secondTimed[sh] = 0;
        secondHistogramOf[sh] = second;
      }
      int[] histogram = periodHistograms[h];
      int[] ofSecond = secondHistograms[sh];
      long timed = 0;
      for (int b = 0; b < BUCKETS; b++) {
        int n = buckets[b];
        if (n != 0) {
          histogram[b] = (int) Math.min(Integer.MAX_VALUE, (long) histogram[b] + n);
          ofSecond[b] = (int) Math.min(Integer.MAX_VALUE, (long) ofSecond[b] + n);
          timed += n;
        }
      }
      secondTimed[sh] += timed;
    }
  }
}
