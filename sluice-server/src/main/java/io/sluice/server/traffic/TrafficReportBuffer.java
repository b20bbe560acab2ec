package io.sluice.server.traffic;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One agent's report read into reused arrays, for {@link TrafficStore#accept(TrafficReportBuffer)}:
 * the identity and the names seen as strings (a few per report), the seconds' rows as columns, each
 * resource's name as characters with its {@link String#hashCode()}, so the store finds the series
 * of a name it holds already without a {@code String} per row.
 *
 * <p>A reader fills it in any order the report's fields come in: {@link #reset}, then the identity
 * setters, {@link #seen}, and per second {@link #beginSecond}/{@link #secondStart}, per row {@link
 * #beginRow}/{@link #rowName}/{@link #rowValue}. Arrays grow with the largest report read and are
 * let go of by {@link #reset} past {@value #KEPT_CHARS} characters of names, so a buffer kept per
 * thread holds a few KiB between reports whatever one report held.
 *
 * <p>Not thread-safe: one report at a time, on one thread.
 */
public final class TrafficReportBuffer {
  /** The statistics of a row, in order; a row holds {@value #FIELDS} ints. */
  public static final int PASS = 0;

  public static final int BLOCK = 1;
  public static final int FAILED = 2;
  public static final int AVG_RT = 3;
  public static final int P50_RT = 4;
  public static final int P99_RT = 5;
  public static final int CONCURRENCY = 6;
  public static final int FIELDS = 7;

  /** Name characters kept between reports; a buffer grown past it starts over at its reset. */
  static final int KEPT_CHARS = 64 * 1024;

  private static final int INITIAL_ROWS = 256;
  private static final int INITIAL_CHARS = 8 * 1024;
  private static final int INITIAL_SECONDS = 4;

  String app;
  String instance;
  String lane;
  long sentAtMillis;
  boolean hasSentAt;
  long dropped;
  final List<String> seenNames = new ArrayList<>();
  final List<String> seenKinds = new ArrayList<>();

  int seconds;
  long[] secondStart = new long[INITIAL_SECONDS];
  boolean[] secondTimed = new boolean[INITIAL_SECONDS];
  int[] secondEnd = new int[INITIAL_SECONDS]; // rows of second s: [end of s - 1, end of s)

  int rows;
  int[] values = new int[INITIAL_ROWS * FIELDS];
  int[] nameStart = new int[INITIAL_ROWS];
  int[] nameLength = new int[INITIAL_ROWS];
  int[] nameHash = new int[INITIAL_ROWS];
  char[] names = new char[INITIAL_CHARS];
  int namesLength;

  /** Empties it for the next report (and lets go of arrays a large report grew). */
  public void reset() {
    app = null;
    instance = null;
    lane = null;
    sentAtMillis = 0;
    hasSentAt = false;
    dropped = 0;
    seenNames.clear();
    seenKinds.clear();
    seconds = 0;
    rows = 0;
    namesLength = 0;
    if (names.length > KEPT_CHARS) {
      names = new char[INITIAL_CHARS];
      values = new int[INITIAL_ROWS * FIELDS];
      nameStart = new int[INITIAL_ROWS];
      nameLength = new int[INITIAL_ROWS];
      nameHash = new int[INITIAL_ROWS];
    }
  }

  public void app(String app) {
    this.app = app;
  }

  public String app() {
    return app;
  }

  public void instance(String instance) {
    this.instance = instance;
  }

  public String instance() {
    return instance;
  }

  /** The instance's lane; null or empty for a base instance. */
  public void lane(String lane) {
    this.lane = lane == null || lane.isEmpty() ? null : lane;
  }

  public void sentAtMillis(long millis) {
    this.sentAtMillis = millis;
    this.hasSentAt = true;
  }

  public boolean hasSentAt() {
    return hasSentAt;
  }

  public void dropped(long dropped) {
    this.dropped = dropped;
  }

  /** A resource the agent has seen, with the kind of its call site (null: none). */
  public void seen(String name, String kind) {
    seenNames.add(name);
    seenKinds.add(kind == null ? "" : kind);
  }

  /** Seconds begun so far. */
  public int seconds() {
    return seconds;
  }

  /** Starts the next second (its rows follow); its start is set by {@link #secondStart}. */
  public void beginSecond() {
    if (seconds == secondStart.length) {
      secondStart = Arrays.copyOf(secondStart, seconds * 2);
      secondTimed = Arrays.copyOf(secondTimed, seconds * 2);
      secondEnd = Arrays.copyOf(secondEnd, seconds * 2);
    }
    secondStart[seconds] = 0;
    secondTimed[seconds] = false;
    secondEnd[seconds] = rows;
    seconds++;
  }

  /** The current second's start, epoch millis on the agent's clock. */
  public void secondStart(long millis) {
    secondStart[seconds - 1] = millis;
    secondTimed[seconds - 1] = true;
  }

  /** Whether the current second's start was set. */
  public boolean secondStarted() {
    return secondTimed[seconds - 1];
  }

  /** Rows of the current second so far. */
  public int secondRows() {
    return rows - (seconds == 1 ? 0 : secondEnd[seconds - 2]);
  }

  /**
   * Starts a row of the current second: counts 0, response times -1 (not timed), no name yet.
   * Returns its index.
   */
  public int beginRow() {
    if (rows == nameStart.length) {
      int more = rows * 2;
      values = Arrays.copyOf(values, more * FIELDS);
      nameStart = Arrays.copyOf(nameStart, more);
      nameLength = Arrays.copyOf(nameLength, more);
      nameHash = Arrays.copyOf(nameHash, more);
    }
    int row = rows++;
    int o = row * FIELDS;
    values[o + PASS] = 0;
    values[o + BLOCK] = 0;
    values[o + FAILED] = 0;
    values[o + AVG_RT] = -1;
    values[o + P50_RT] = -1;
    values[o + P99_RT] = -1;
    values[o + CONCURRENCY] = 0;
    nameLength[row] = -1;
    secondEnd[seconds - 1] = rows;
    return row;
  }

  /** The row's resource name: {@code length} characters of {@code chars} from {@code offset}. */
  public void rowName(int row, char[] chars, int offset, int length) {
    if (namesLength + length > names.length) {
      names = Arrays.copyOf(names, Math.max(names.length * 2, namesLength + length));
    }
    System.arraycopy(chars, offset, names, namesLength, length);
    int hash = 0;
    for (int i = namesLength, end = namesLength + length; i < end; i++) {
      hash = 31 * hash + names[i];
    }
    nameStart[row] = namesLength;
    nameLength[row] = length;
    nameHash[row] = hash;
    namesLength += length;
  }

  /** Whether the row has a name. */
  public boolean rowNamed(int row) {
    return nameLength[row] >= 0;
  }

  /** Sets a statistic of the row ({@link #PASS} ... {@link #CONCURRENCY}). */
  public void rowValue(int row, int field, int value) {
    values[row * FIELDS + field] = value;
  }

  int rowsFrom(int second) {
    return second == 0 ? 0 : secondEnd[second - 1];
  }

  int rowsTo(int second) {
    return secondEnd[second];
  }

  /** Whether row {@code row}'s name is {@code name} (its hash compared first by the caller). */
  boolean nameEquals(int row, String name) {
    int length = nameLength[row];
    if (name.length() != length) {
      return false;
    }
    int start = nameStart[row];
    for (int i = 0; i < length; i++) {
      if (names[start + i] != name.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  String name(int row) {
    return new String(names, nameStart[row], nameLength[row]);
  }

  /** {@code report}, as a reader of the wire format would have filled it. */
  static TrafficReportBuffer of(TrafficReport report) {
    TrafficReportBuffer b = new TrafficReportBuffer();
    b.reset();
    b.app(report.app());
    b.instance(report.instance());
    b.lane(report.lane());
    b.sentAtMillis(report.sentAtMillis());
    b.dropped(report.dropped());
    for (TrafficReport.SeenResource seen : report.seen()) {
      b.seen(seen.name(), seen.kind());
    }
    for (TrafficReport.Second second : report.seconds()) {
      b.beginSecond();
      b.secondStart(second.startMillis());
      for (ResourceSecond r : second.resources()) {
        int row = b.beginRow();
        char[] name = r.name().toCharArray();
        b.rowName(row, name, 0, name.length);
        b.rowValue(row, PASS, r.pass());
        b.rowValue(row, BLOCK, r.block());
        b.rowValue(row, FAILED, r.failed());
        b.rowValue(row, AVG_RT, r.avgRtMicros());
        b.rowValue(row, P50_RT, r.p50RtMicros());
        b.rowValue(row, P99_RT, r.p99RtMicros());
        b.rowValue(row, CONCURRENCY, r.concurrency());
      }
    }
    return b;
  }
}
