package io.sluice.agent.reporting;

import io.sluice.agent.logging.AgentLog;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.SecondCounts;
import io.sluice.flow.SecondsReader;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Sends this application's per-resource statistics of each complete second to the server, so the
 * console can chart them. {@link #tick} runs once a second on the agent's reporting thread: it
 * reads the seconds completed since the last tick from the flow registry ({@link
 * FlowRegistry#readSeconds}, which never stops the callers) and writes them at once as the JSON
 * they are sent as; every {@code sendEverySeconds} ticks it sends every second kept so far in one
 * report.
 *
 * <p>Cost: code run once a second never gets hot, so every step here is written to do little
 * interpreted work: a resource with no call since the last tick costs two field reads; an active
 * one is written with no object allocated (its name's encoded bytes are kept, numbers are written
 * as digits into a reused buffer); a report is the seconds' bytes copied behind a small header, and
 * the names of the resources seen are built only when their number changed or every {@value
 * #SEEN_EVERY_SECONDS} reports.
 *
 * <p>Invariants: nothing here runs on an application thread. At most {@value #MAX_PENDING_SECONDS}
 * seconds wait for a server that does not answer, the oldest dropped first (and counted in the next
 * report), and a second holds at most {@value #MAX_RESOURCES_PER_SECOND} resources, the busiest: an
 * unreachable server costs the application a bounded buffer and one failed attempt per report,
 * nothing else.
 *
 * <p>Concurrency: used by one thread only.
 */
public final class TrafficReporter {
  public static final int MAX_PENDING_SECONDS = 20;
  public static final int MAX_RESOURCES_PER_SECOND = 1_000;
  public static final int MAX_SEEN = 2_000;

  /** The names seen are sent when their number changes, and at least this often. */
  static final int SEEN_EVERY_SECONDS = 30;

  /** Encoded names kept; past it the cache starts over (a registry bounds its resources). */
  private static final int MAX_CACHED_NAMES = 4 * MAX_RESOURCES_PER_SECOND;

  private final FlowRegistry registry;
  private final Supplier<Map<String, String>> seen;
  private final IntSupplier seenCount;
  private final TrafficSender sender;
  private final LongSupplier wallClock;
  private final int sendEverySeconds;
  private final AgentLog log;
  private final byte[] identity; // "app", "instance" and "lane", encoded once
  private final SecondsReader collector = new Collector();
  private final Map<String, byte[]> encodedNames = new HashMap<>();

  /** Pending seconds: a ring of buffers reused, the oldest at {@code first}. */
  private final FormJson[] pending = new FormJson[MAX_PENDING_SECONDS];

  private final FormJson body = new FormJson(4_096);
  private int first;
  private int count;
  private FormJson open; // the second being written, the newest of the ring
  private int openRows;
  private long[] rowActivity = new long[64]; // passed + blocked of each row of the open second
  private int[] rowStart = new int[64]; // where each row starts in the open second

  private long lastRead;
  private long wallAnchor; // wall millis at the registry clock's 0
  private long dropped;
  private boolean failing;
  private int seenSent = -1; // how many names the last report the server took listed
  private int reportsSinceSeen;
  private int ticksSinceSend;

  /**
   * @param instance this process's id within the application
   * @param lane this instance's lane, or null
   * @param seen every resource resolved so far, name to kind of call site
   * @param seenCount how many those are, read before each report ({@code seen} builds a map)
   * @param wallClock epoch millis
   * @param sendEverySeconds ticks between reports, 1 to {@value #MAX_PENDING_SECONDS} / 2
   */
  public TrafficReporter(
      String app,
      String instance,
      String lane,
      FlowRegistry registry,
      Supplier<Map<String, String>> seen,
      IntSupplier seenCount,
      TrafficSender sender,
      LongSupplier wallClock,
      int sendEverySeconds,
      AgentLog log) {
    if (sendEverySeconds < 1 || sendEverySeconds > MAX_PENDING_SECONDS / 2) {
      throw new IllegalArgumentException("sendEverySeconds " + sendEverySeconds);
    }
    this.registry = registry;
    this.seen = seen;
    this.seenCount = seenCount;
    this.sender = sender;
    this.wallClock = wallClock;
    this.sendEverySeconds = sendEverySeconds;
    this.log = log;
    FormJson id = new FormJson(128).raw("{\"app\":").string(app).raw(",\"instance\":");
    id.string(instance);
    if (lane != null) {
      id.raw(",\"lane\":").string(lane);
    }
    this.identity = Arrays.copyOf(id.array(), id.length());
    long clock = registry.clockNanos();
    this.lastRead = clock / 1_000_000_000L - 1;
    this.wallAnchor = wallClock.getAsLong() - clock / 1_000_000L;
  }

  /**
   * Takes the seconds completed since the last tick and sends what is pending every {@code
   * sendEverySeconds} ticks. Never throws.
   */
  public void tick() {
    try {
      collect();
      if (++ticksSinceSend >= sendEverySeconds) {
        ticksSinceSend = 0;
        send();
      }
    } catch (RuntimeException e) {
      if (open != null) {
        open = null; // half written: not sent
        count--;
      }
      log.warn("traffic report failed: " + e);
    }
  }

  /** Seconds taken and not yet acknowledged by the server. */
  int pendingSeconds() {
    return count;
  }

  /** Seconds dropped since the last report the server took. */
  long droppedSeconds() {
    return dropped;
  }

  private void collect() {
    // A wall clock stepped by more than a second moves the seconds' labels with it.
    long drift = wallClock.getAsLong() - registry.clockNanos() / 1_000_000L - wallAnchor;
    if (Math.abs(drift) > 1_000) {
      wallAnchor += drift;
    }
    lastRead = registry.readSeconds(lastRead, collector);
    closeSecond();
  }

  /** Writes each second as the registry hands it over. */
  private final class Collector implements SecondsReader {
    @Override
    public void beginSecond(long second) {
      closeSecond();
      if (count == MAX_PENDING_SECONDS) {
        first = (first + 1) % MAX_PENDING_SECONDS;
        count--;
        dropped++;
      }
      int slot = (first + count) % MAX_PENDING_SECONDS;
      FormJson s = pending[slot];
      if (s == null) {
        s = pending[slot] = new FormJson(1_024);
      }
      s.reset();
      s.raw("{\"t\":").number(wallAnchor + second * 1_000).raw(",\"resources\":[");
      count++;
      open = s;
      openRows = 0;
    }

    @Override
    public void resource(SecondCounts c) {
      FormJson s = open;
      if (s == null) {
        return;
      }
      if (openRows == rowStart.length) {
        rowStart = Arrays.copyOf(rowStart, openRows * 2);
        rowActivity = Arrays.copyOf(rowActivity, openRows * 2);
      }
      rowStart[openRows] = s.length();
      rowActivity[openRows] = c.passed() + c.blocked();
      if (openRows > 0) {
        s.raw(',');
      }
      openRows++;
      s.raw("{\"name\":").bytes(encodedName(c.resource()));
      s.raw(",\"pass\":").number(c.passed());
      s.raw(",\"block\":").number(c.blocked());
      s.raw(",\"failed\":").number(c.failed());
      if (c.timedCompletions() > 0) {
        s.raw(",\"rt\":").number(c.averageRtNanos() / 1000);
        s.raw(",\"p50\":").number(c.p50Nanos() / 1000);
        s.raw(",\"p99\":").number(c.p99Nanos() / 1000);
      }
      s.raw(",\"concurrency\":").number(c.concurrency()).raw('}');
    }
  }

  private byte[] encodedName(String name) {
    byte[] encoded = encodedNames.get(name);
    if (encoded == null) {
      if (encodedNames.size() >= MAX_CACHED_NAMES) {
        encodedNames.clear();
      }
      FormJson json = new FormJson(name.length() + 16).string(name);
      encoded = Arrays.copyOf(json.array(), json.length());
      encodedNames.put(name, encoded);
    }
    return encoded;
  }

  private void closeSecond() {
    FormJson s = open;
    if (s == null) {
      return;
    }
    open = null;
    if (openRows > MAX_RESOURCES_PER_SECOND) {
      keepBusiest(s);
    }
    s.raw("]}");
  }

  /** Rewrites the open second with only its {@value #MAX_RESOURCES_PER_SECOND} busiest rows. */
  private void keepBusiest(FormJson s) {
    Integer[] rows = new Integer[openRows];
    for (int i = 0; i < openRows; i++) {
      rows[i] = i;
    }
    Arrays.sort(rows, (a, b) -> Long.compare(rowActivity[b], rowActivity[a]));
    boolean[] kept = new boolean[openRows];
    for (int i = 0; i < MAX_RESOURCES_PER_SECOND; i++) {
      kept[rows[i]] = true;
    }
    FormJson copy = new FormJson(s.length());
    copy.bytes(s.array(), 0, rowStart[0]);
    boolean firstRow = true;
    for (int i = 0; i < openRows; i++) {
      if (!kept[i]) {
        continue;
      }
      int from = rowStart[i] + (i > 0 ? 1 : 0); // without the comma before it
      int to = i + 1 < openRows ? rowStart[i + 1] : s.length();
      if (!firstRow) {
        copy.raw(',');
      }
      firstRow = false;
      copy.bytes(s.array(), from, to - from);
    }
    s.reset();
    s.bytes(copy);
  }

  private void send() {
    if (count == 0) {
      return;
    }
    int names = seenCount.getAsInt();
    boolean withSeen = names != seenSent || reportsSinceSeen >= SEEN_EVERY_SECONDS - 1;
    Map<String, String> seenNames = withSeen ? seen.get() : null;
    writeReport(seenNames);
    String failure = sender.send(body.array(), body.length());
    if (failure == null) {
      first = 0;
      count = 0;
      dropped = 0;
      if (withSeen) {
        seenSent = names;
        reportsSinceSeen = 0;
      } else {
        reportsSinceSeen++;
      }
      if (failing) {
        failing = false;
        log.info("traffic reports reach the server again");
      }
      return;
    }
    if (!failing) {
      failing = true;
      log.warn(
          "traffic reports do not reach the server ("
              + failure
              + "); keeping the last "
              + MAX_PENDING_SECONDS
              + " s and retrying every "
              + (sendEverySeconds == 1 ? "second" : sendEverySeconds + " s")
              + ". Said once until they do.");
    }
  }

  /** The form body: every pending second; with the names seen unless {@code names} is null. */
  private void writeReport(Map<String, String> names) {
    FormJson b = body;
    b.reset();
    b.raw("report=").bytes(identity);
    b.raw(",\"sentAt\":").number(wallClock.getAsLong());
    b.raw(",\"dropped\":").number(dropped);
    if (names != null) {
      b.raw(",\"seen\":[");
      int n = 0;
      for (Map.Entry<String, String> e : names.entrySet()) {
        if (n++ >= MAX_SEEN) {
          break;
        }
        b.raw(n > 1 ? ",{\"name\":" : "{\"name\":")
            .string(e.getKey())
            .raw(",\"kind\":")
            .string(e.getValue())
            .raw('}');
      }
      b.raw(']');
    }
    b.raw(",\"seconds\":[");
    for (int i = 0; i < count; i++) {
      if (i > 0) {
        b.raw(',');
      }
      b.bytes(pending[(first + i) % MAX_PENDING_SECONDS]);
    }
    b.raw("]}");
  }
}
