package io.sluice.server.traffic;

import io.sluice.server.clock.ServerClock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The last minute of traffic of every governed application, per instance and resource, as the
 * agents report it once a second; the console's charts read it. Soft state: nothing is replicated
 * or written to disk, and a restarted server fills up again within seconds.
 *
 * <p>Invariants (bounded memory, whatever agents send): at most {@value #MAX_APPS} applications,
 * {@value #MAX_INSTANCES_PER_APP} instances each, {@value #MAX_SERIES} resource series in all and
 * {@value #MAX_SEEN_PER_INSTANCE} seen names per instance; a series is a fixed ring of {@value
 * #RETAINED_SECONDS} seconds (about 1.7 KB; names are shared by the instances of an application),
 * so the store holds at most about 60 MB. What would pass a bound is dropped and counted ({@link
 * #refused()}), never stored. An instance that has not reported for {@value #EXPIRY_SECONDS} s is
 * forgotten by {@link #expire()}, and an application with it when it has no instance left.
 *
 * <p>Concurrency: reports arrive on any thread; each series is written and read under its own lock
 * (one report a second writes it; the console reads it); the maps are concurrent.
 */
public final class TrafficStore {
  public static final int RETAINED_SECONDS = 60;
  public static final int EXPIRY_SECONDS = 2 * RETAINED_SECONDS;

  /**
   * An instance whose last report is older than this is not waited for when choosing the newest
   * second to show: agents send a report every 1 to 10 s, so this is two of their longest gaps.
   */
  public static final int SETTLE_WAIT_SECONDS = 25;

  public static final int MAX_APPS = 1_000;
  public static final int MAX_INSTANCES_PER_APP = 1_000;
  public static final int MAX_SERIES = 30_000;
  public static final int MAX_SEEN_PER_INSTANCE = 2_000;

  /** Fields of a series' slot, in the order a report's rows hold them. */
  private static final int PASS = TrafficReportBuffer.PASS;

  private static final int BLOCK = TrafficReportBuffer.BLOCK;
  private static final int FAILED = TrafficReportBuffer.FAILED;
  private static final int AVG_RT = TrafficReportBuffer.AVG_RT;
  private static final int P50_RT = TrafficReportBuffer.P50_RT;
  private static final int P99_RT = TrafficReportBuffer.P99_RT;
  private static final int CONCURRENCY = TrafficReportBuffer.CONCURRENCY;
  private static final int FIELDS = TrafficReportBuffer.FIELDS;

  private final ServerClock clock;
  private final Map<String, App> apps = new ConcurrentHashMap<>();
  private final AtomicInteger series = new AtomicInteger();
  private final LongAdder reports = new LongAdder();
  private final LongAdder refused = new LongAdder();

  public TrafficStore(ServerClock clock) {
    this.clock = clock;
  }

  /** Stores a report; what would pass a bound is dropped and counted. */
  public void accept(TrafficReport report) {
    accept(TrafficReportBuffer.of(report));
  }

  /**
   * Stores a report read into {@code report}; what would pass a bound is dropped and counted. A
   * series this instance has sent before is found by its name's characters: once an instance's
   * resources are known, a report allocates nothing here.
   */
  public void accept(TrafficReportBuffer report) {
    reports.increment();
    long now = clock.currentTimeMillis();
    App app = apps.get(report.app);
    if (app == null) {
      if (apps.size() >= MAX_APPS) {
        refused.increment();
        return;
      }
      app = apps.computeIfAbsent(report.app, App::new);
    }
    Instance instance = app.instances.get(report.instance);
    if (instance == null) {
      if (app.instances.size() >= MAX_INSTANCES_PER_APP) {
        refused.increment();
        return;
      }
      instance = app.instances.computeIfAbsent(report.instance, Instance::new);
    }
    instance.lane = report.lane;
    instance.lastReportMillis = now;
    instance.droppedByAgent += report.dropped;
    for (int i = 0; i < report.seenNames.size(); i++) {
      String name = report.seenNames.get(i);
      if (instance.seen.size() < MAX_SEEN_PER_INSTANCE || instance.seen.containsKey(name)) {
        instance.seen.put(app.shared(name), app.shared(report.seenKinds.get(i)));
      } else {
        refused.increment();
      }
    }
    // The agent's seconds, moved onto this server's clock.
    long skew = now - report.sentAtMillis;
    for (int second = 0; second < report.seconds; second++) {
      long secondOnServer = Math.floorDiv(report.secondStart[second] + skew, 1000);
      synchronized (instance) {
        if (!instance.startSecond(secondOnServer)) {
          continue; // older than what the ring holds already
        }
        instance.newestSecond = Math.max(instance.newestSecond, secondOnServer);
        for (int row = report.rowsFrom(second), to = report.rowsTo(second); row < to; row++) {
          Series s = instance.find(report, row);
          if (s == null) {
            if (series.incrementAndGet() > MAX_SERIES) {
              series.decrementAndGet();
              refused.increment();
              continue;
            }
            s = instance.add(app.shared(report.name(row)));
          }
          s.put(secondOnServer, report.values, row * FIELDS);
        }
      }
    }
  }

  /** Forgets instances silent for {@value #EXPIRY_SECONDS} s, and applications left empty. */
  public void expire() {
    long cutoff = clock.currentTimeMillis() - EXPIRY_SECONDS * 1000L;
    for (App app : apps.values()) {
      app.instances
          .values()
          .removeIf(
              instance -> {
                if (instance.lastReportMillis < cutoff) {
                  series.addAndGet(-instance.series.size());
                  return true;
                }
                return false;
              });
      if (app.instances.isEmpty()) {
        apps.remove(app.name, app);
      }
    }
  }

  /** The applications reporting, with their instances, sorted by name. */
  public List<AppView> apps() {
    List<AppView> out = new ArrayList<>();
    for (App app : apps.values()) {
      out.add(view(app));
    }
    out.sort(Comparator.comparing(AppView::app));
    return out;
  }

  /** One application's instances here, or null when none reports here. */
  public AppView app(String name) {
    App app = apps.get(name);
    return app == null ? null : view(app);
  }

  private static AppView view(App app) {
    List<InstanceView> instances = new ArrayList<>();
    for (Instance i : app.instances.values()) {
      instances.add(
          new InstanceView(
              i.id,
              i.lane,
              i.lastReportMillis,
              i.newestSecond,
              i.seen.size(),
              i.series.size(),
              i.droppedByAgent,
              null));
    }
    instances.sort(Comparator.comparing(InstanceView::instance));
    return new AppView(app.name, instances);
  }

  /**
   * Every resource any instance of {@code app} has seen, with its kind and its last complete second
   * summed over the instances (null when no instance has statistics for it), sorted by name.
   */
  public List<ResourceView> resources(String app) {
    App a = apps.get(app);
    return a == null ? List.of() : resourcesAt(a, settledSecond(a));
  }

  /**
   * As {@link #resources}, at a given second: what this node holds of it, for a node that merges it
   * with the other members' share (a second summed over this node's instances only).
   */
  public List<ResourceView> resourcesAt(String app, long second) {
    App a = apps.get(app);
    return a == null ? List.of() : resourcesAt(a, second);
  }

  private List<ResourceView> resourcesAt(App a, long second) {
    Map<String, String> kinds = new LinkedHashMap<>();
    Map<String, int[]> latest = new LinkedHashMap<>();
    for (Instance i : a.instances.values()) {
      i.seen.forEach(kinds::putIfAbsent);
      i.series.forEach(
          (name, s) -> {
            kinds.putIfAbsent(name, "");
            int[] slot = i.get(s, second);
            if (slot != null) {
              merge(latest.computeIfAbsent(name, n -> new int[FIELDS + 1]), slot);
            }
          });
    }
    List<ResourceView> out = new ArrayList<>();
    kinds.forEach(
        (name, kind) -> {
          int[] sum = latest.get(name);
          out.add(new ResourceView(name, kind, sum == null ? null : point(second, sum)));
        });
    out.sort(Comparator.comparing(ResourceView::name));
    return out;
  }

  /**
   * The last {@value #RETAINED_SECONDS} complete seconds of one resource of {@code app}, oldest
   * first, summed over its instances (or of one instance when {@code instance} is given); a second
   * without a report is absent.
   */
  public List<Point> series(String app, String resource, String instance) {
    App a = apps.get(app);
    return a == null ? List.of() : seriesUpTo(a, resource, instance, settledSecond(a));
  }

  /**
   * As {@link #series}, for the {@value #RETAINED_SECONDS} seconds up to {@code last}: what this
   * node holds of them, for a node that merges it with the other members' share.
   */
  public List<Point> seriesUpTo(String app, String resource, String instance, long last) {
    App a = apps.get(app);
    return a == null ? List.of() : seriesUpTo(a, resource, instance, last);
  }

  private List<Point> seriesUpTo(App a, String resource, String instance, long last) {
    long first = last - RETAINED_SECONDS + 1;
    int[][] sums = new int[RETAINED_SECONDS][];
    for (Instance i : a.instances.values()) {
      if (instance != null && !instance.equals(i.id)) {
        continue;
      }
      Series s = i.series.get(resource);
      if (s == null) {
        continue;
      }
      for (long t = first; t <= last; t++) {
        int[] slot = i.get(s, t);
        if (slot != null) {
          int k = (int) (t - first);
          if (sums[k] == null) {
            sums[k] = new int[FIELDS + 1];
          }
          merge(sums[k], slot);
        }
      }
    }
    List<Point> out = new ArrayList<>();
    for (int k = 0; k < RETAINED_SECONDS; k++) {
      if (sums[k] != null) {
        out.add(point(first + k, sums[k]));
      }
    }
    return out;
  }

  /** Reports received, ever. */
  public long reports() {
    return reports.sum();
  }

  /** Applications, instances, series and names dropped at a bound, ever. */
  public long refused() {
    return refused.sum();
  }

  /** Resource series held now. */
  public int seriesCount() {
    return series.get();
  }

  private long lastCompleteSecond() {
    return Math.floorDiv(clock.currentTimeMillis(), 1000) - 1;
  }

  /**
   * The newest second every reporting instance of {@code app} has sent, at most the server's last
   * complete second. Agents batch their seconds (a report every few seconds, at different phases),
   * so the server's own last second is mostly not in yet from all of them, and a sum over it would
   * count only some instances. An instance silent for {@value #SETTLE_WAIT_SECONDS} s is not waited
   * for.
   */
  private long settledSecond(App a) {
    return settledSecond(view(a).instances());
  }

  /**
   * {@link #settledSecond(App)} for instances listed by several nodes (each reports to one member
   * of a cluster); their report times and seconds are on the clocks of the members that took them.
   */
  public long settledSecond(List<InstanceView> instances) {
    long last = lastCompleteSecond();
    long cutoff = clock.currentTimeMillis() - SETTLE_WAIT_SECONDS * 1000L;
    long settled = Long.MAX_VALUE;
    for (InstanceView i : instances) {
      if (i.lastReportMillis() >= cutoff && i.newestSecond() != Long.MIN_VALUE) {
        settled = Math.min(settled, i.newestSecond());
      }
    }
    return Math.min(settled, last);
  }

  /**
   * Adds an instance's second into a sum: counts add up; the mean response time is weighted by
   * passed calls (kept in the extra last field); percentiles take the highest instance's, an upper
   * bound of the application's.
   */
  private static void merge(int[] sum, int[] slot) {
    int weightBefore = sum[FIELDS];
    int weight = Math.max(1, slot[PASS]);
    sum[PASS] += slot[PASS];
    sum[BLOCK] += slot[BLOCK];
    sum[FAILED] += slot[FAILED];
    sum[CONCURRENCY] += slot[CONCURRENCY];
    if (slot[AVG_RT] >= 0) {
      sum[AVG_RT] =
          weightBefore == 0
              ? slot[AVG_RT]
              : (int)
                  (((long) sum[AVG_RT] * weightBefore + (long) slot[AVG_RT] * weight)
                      / (weightBefore + weight));
      sum[FIELDS] = weightBefore + weight;
    }
    sum[P50_RT] = Math.max(sum[P50_RT], slot[P50_RT]);
    sum[P99_RT] = Math.max(sum[P99_RT], slot[P99_RT]);
  }

  private static Point point(long second, int[] v) {
    boolean timed = v[FIELDS] > 0;
    return new Point(
        second * 1000,
        v[PASS],
        v[BLOCK],
        v[FAILED],
        timed ? v[AVG_RT] : -1,
        timed ? v[P50_RT] : -1,
        timed ? v[P99_RT] : -1,
        v[CONCURRENCY],
        v[FIELDS]);
  }

  /**
   * One second of a resource (summed over instances); response times in µs, -1 if none timed.
   *
   * @param weight how many calls the mean is weighted by: sums from different nodes add up with
   *     {@link #plus}
   */
  public record Point(
      long startMillis,
      int pass,
      int block,
      int failed,
      int avgRtMicros,
      int p50RtMicros,
      int p99RtMicros,
      int concurrency,
      int weight) {
    /**
     * This second and another sum of the same second (another node's instances): counts add up, the
     * mean is weighted, the percentiles are the higher (an upper bound, as over instances).
     */
    public Point plus(Point other) {
      int weights = weight + other.weight;
      int avg =
          weight == 0
              ? other.avgRtMicros
              : other.weight == 0
                  ? avgRtMicros
                  : (int)
                      (((long) avgRtMicros * weight + (long) other.avgRtMicros * other.weight)
                          / weights);
      return new Point(
          startMillis,
          pass + other.pass,
          block + other.block,
          failed + other.failed,
          avg,
          Math.max(p50RtMicros, other.p50RtMicros),
          Math.max(p99RtMicros, other.p99RtMicros),
          concurrency + other.concurrency,
          weights);
    }
  }

  public record AppView(String app, List<InstanceView> instances) {}

  /**
   * One instance as a node holds it.
   *
   * @param newestSecond the newest second it has sent (on the clock of the node that took it), or
   *     {@link Long#MIN_VALUE} before its first
   * @param node the member holding it, when a node lists the cluster's instances; null otherwise
   */
  public record InstanceView(
      String instance,
      String lane,
      long lastReportMillis,
      long newestSecond,
      int resourcesSeen,
      int series,
      long droppedByAgent,
      String node) {
    public InstanceView atNode(String address) {
      return new InstanceView(
          instance,
          lane,
          lastReportMillis,
          newestSecond,
          resourcesSeen,
          series,
          droppedByAgent,
          address);
    }
  }

  public record ResourceView(String name, String kind, Point lastSecond) {}

  private static final class App {
    /** Distinct names kept shared per application; past it, names are simply not shared. */
    static final int MAX_SHARED_NAMES = 20_000;

    final String name;
    final Map<String, Instance> instances = new ConcurrentHashMap<>();
    private final Map<String, String> names = new ConcurrentHashMap<>();

    App(String name) {
      this.name = name;
    }

    /**
     * One String for a name every instance of the application reports (its routes), so 100
     * instances of it hold one copy of each, not 100.
     */
    String shared(String s) {
      String kept = names.get(s);
      if (kept != null) {
        return kept;
      }
      if (names.size() >= MAX_SHARED_NAMES) {
        return s;
      }
      kept = names.putIfAbsent(s, s);
      return kept == null ? s : kept;
    }
  }

  /**
   * One instance's series, and which second each slot of their rings holds: the same for all of
   * them, since one report carries one second of every resource. Guarded by the instance's lock.
   */
  private static final class Instance {
    final String id;
    final Map<String, String> seen = new ConcurrentHashMap<>();
    final Map<String, Series> series = new ConcurrentHashMap<>();
    private final long[] secondOf = new long[RETAINED_SECONDS];

    /**
     * The same series as {@link #series}, by the hash of their names in open addressing, for the
     * report's writer (under the lock): found from a row's characters, no {@code String} made.
     */
    private Series[] byName = new Series[16];

    private int named;
    volatile String lane;
    volatile long lastReportMillis;
    volatile long droppedByAgent;
    volatile long newestSecond = Long.MIN_VALUE; // written under the lock

    Instance(String id) {
      this.id = id;
      java.util.Arrays.fill(secondOf, Long.MIN_VALUE);
    }

    /**
     * Makes {@code second}'s slot current, clearing what every series held there a minute ago;
     * false when the slot holds a later second already. Called under the lock.
     */
    boolean startSecond(long second) {
      int slot = slot(second);
      if (secondOf[slot] > second) {
        return false;
      }
      if (secondOf[slot] < second) {
        secondOf[slot] = second;
        for (Series s : byName) {
          if (s != null) {
            s.clear(slot);
          }
        }
      }
      return true;
    }

    /**
     * The series of the report's row {@code row}, or null when none has its name. Under the lock.
     */
    Series find(TrafficReportBuffer report, int row) {
      int hash = report.nameHash[row];
      int mask = byName.length - 1;
      for (int i = spread(hash) & mask; ; i = (i + 1) & mask) {
        Series s = byName[i];
        if (s == null || (s.hash == hash && report.nameEquals(row, s.name))) {
          return s;
        }
      }
    }

    /** A new series named {@code name} (not held yet). Under the lock. */
    Series add(String name) {
      Series s = new Series(name);
      if (++named * 2 > byName.length) {
        Series[] old = byName;
        byName = new Series[old.length * 2];
        for (Series o : old) {
          if (o != null) {
            place(o);
          }
        }
      }
      place(s);
      series.put(name, s);
      return s;
    }

    private void place(Series s) {
      int mask = byName.length - 1;
      int i = spread(s.hash) & mask;
      while (byName[i] != null) {
        i = (i + 1) & mask;
      }
      byName[i] = s;
    }

    private static int spread(int hash) {
      return hash ^ (hash >>> 16);
    }

    /** The series' fields in {@code second} (a copy), or null when not reported. */
    synchronized int[] get(Series s, long second) {
      int slot = slot(second);
      return secondOf[slot] == second ? s.get(slot) : null;
    }

    private static int slot(long second) {
      return (int) Math.floorMod(second, (long) RETAINED_SECONDS);
    }
  }

  /**
   * A ring of the last seconds of one resource of one instance: {@value #FIELDS} ints per second,
   * about 1.7 KB; which second a slot holds is its instance's. Guarded by the instance's lock.
   */
  private static final class Series {
    final String name;
    final int hash;
    private final int[] values = new int[RETAINED_SECONDS * FIELDS];

    Series(String name) {
      this.name = name;
      this.hash = name.hashCode();
      for (int slot = 0; slot < RETAINED_SECONDS; slot++) {
        clear(slot);
      }
    }

    void clear(int slot) {
      values[slot * FIELDS + PASS] = -1; // not reported in that second
    }

    /** A row's {@value #FIELDS} statistics, from {@code row[from]}, as {@code second}'s. */
    void put(long second, int[] row, int from) {
      int o = (int) Math.floorMod(second, (long) RETAINED_SECONDS) * FIELDS;
      System.arraycopy(row, from, values, o, FIELDS);
    }

    int[] get(int slot) {
      int o = slot * FIELDS;
      if (values[o + PASS] < 0) {
        return null;
      }
      int[] out = new int[FIELDS];
      System.arraycopy(values, o, out, 0, FIELDS);
      return out;
    }
  }
}
