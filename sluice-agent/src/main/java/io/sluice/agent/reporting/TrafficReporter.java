package io.sluice.agent.reporting;

import io.sluice.agent.logging.AgentLog;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.ResourceSecond;
import io.sluice.flow.WindowStatistics;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Sends this application's per-resource statistics of each complete second to the server, so the
 * console can chart them. {@link #tick} runs once a second on the agent's reporting thread: it
 * takes the flow registry's last complete second (a snapshot that never stops the callers) and
 * keeps it; every {@code sendEverySeconds} ticks it sends every second kept so far in one report. A
 * report costs about the same CPU whatever number of seconds it carries (~1–2 ms on code that, run
 * once a second, never gets hot), so batching them is what keeps the cost per request served small.
 *
 * <p>Invariants: nothing here runs on an application thread; the application's calls pay only for
 * the statistics sluice-flow keeps anyway. At most {@value #MAX_PENDING_SECONDS} seconds wait for a
 * server that does not answer, the oldest dropped first (and counted in the next report), and a
 * second holds at most {@value #MAX_RESOURCES_PER_SECOND} resources, the busiest, and the names of
 * the resources seen go only when they changed or every {@value #SEEN_EVERY_SECONDS} s: an
 * unreachable server costs the application a bounded buffer and one failed attempt per report,
 * nothing else.
 *
 * <p>Concurrency: used by one thread only.
 */
public final class TrafficReporter {
  public static final int MAX_PENDING_SECONDS = 20;
  public static final int MAX_RESOURCES_PER_SECOND = 1_000;
  public static final int MAX_SEEN = 2_000;

  /** The names seen are sent when they change, and at least this often (a restarted server). */
  static final int SEEN_EVERY_SECONDS = 30;

  private final String app;
  private final String instance;
  private final String lane;
  private final FlowRegistry registry;
  private final Supplier<Map<String, String>> seen;
  private final TrafficSender sender;
  private final LongSupplier wallClock;
  private final int sendEverySeconds;
  private final AgentLog log;
  private final Deque<String> pending = new ArrayDeque<>();
  private long lastSecondEnd = -1;
  private long dropped;
  private boolean failing;
  private int seenSent = -1; // how many names the last report the server took listed
  private int reportsSinceSeen;
  private int ticksSinceSend;

  /**
   * @param instance this process's id within the application
   * @param lane this instance's lane, or null
   * @param seen every resource resolved so far, name to kind of call site
   * @param wallClock epoch millis
   * @param sendEverySeconds ticks between reports, 1 to {@value #MAX_PENDING_SECONDS} / 2
   */
  public TrafficReporter(
      String app,
      String instance,
      String lane,
      FlowRegistry registry,
      Supplier<Map<String, String>> seen,
      TrafficSender sender,
      LongSupplier wallClock,
      int sendEverySeconds,
      AgentLog log) {
    if (sendEverySeconds < 1 || sendEverySeconds > MAX_PENDING_SECONDS / 2) {
      throw new IllegalArgumentException("sendEverySeconds " + sendEverySeconds);
    }
    this.app = app;
    this.instance = instance;
    this.lane = lane;
    this.registry = registry;
    this.seen = seen;
    this.sender = sender;
    this.wallClock = wallClock;
    this.sendEverySeconds = sendEverySeconds;
    this.log = log;
  }

  /**
   * Takes the last complete second, if it is new, and sends what is pending every {@code
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
      log.warn("traffic report failed: " + e);
    }
  }

  /** Seconds taken and not yet acknowledged by the server. */
  int pendingSeconds() {
    return pending.size();
  }

  /** Seconds dropped since the last report the server took. */
  long droppedSeconds() {
    return dropped;
  }

  private void collect() {
    List<ResourceSecond> all = registry.lastSeconds();
    if (all.isEmpty()) {
      return;
    }
    long end = all.get(0).lastSecond().endNanos();
    if (end == lastSecondEnd) {
      return; // no new complete second since the last tick
    }
    lastSecondEnd = end;
    long start = Math.floorDiv(wallClock.getAsLong(), 1000) * 1000 - 1000;
    if (all.size() > MAX_RESOURCES_PER_SECOND) {
      all = new java.util.ArrayList<>(all);
      all.sort(
          (a, b) ->
              Long.compare(
                  b.lastSecond().passed() + b.lastSecond().blocked(),
                  a.lastSecond().passed() + a.lastSecond().blocked()));
      all = all.subList(0, MAX_RESOURCES_PER_SECOND);
    }
    StringBuilder json = new StringBuilder(64 + all.size() * 96);
    json.append("{\"t\":").append(start).append(",\"resources\":[");
    boolean first = true;
    for (ResourceSecond s : all) {
      WindowStatistics w = s.lastSecond();
      if (w.passed() == 0 && w.blocked() == 0 && w.completed() == 0 && s.concurrency() == 0) {
        continue;
      }
      if (!first) {
        json.append(',');
      }
      first = false;
      json.append("{\"name\":");
      Json.string(json, s.resource());
      json.append(",\"pass\":").append(w.passed());
      json.append(",\"block\":").append(w.blocked());
      json.append(",\"failed\":").append(w.failed());
      if (w.timedCompletions() > 0) {
        json.append(",\"rt\":").append((long) (w.averageRtNanos() / 1000));
        json.append(",\"p50\":").append(w.percentileNanos(0.5) / 1000);
        json.append(",\"p99\":").append(w.percentileNanos(0.99) / 1000);
      }
      json.append(",\"concurrency\":").append(Math.max(0, s.concurrency()));
      json.append('}');
    }
    json.append("]}");
    if (pending.size() >= MAX_PENDING_SECONDS) {
      pending.removeFirst();
      dropped++;
    }
    pending.addLast(json.toString());
  }

  private void send() {
    if (pending.isEmpty()) {
      return;
    }
    Map<String, String> names = seen.get();
    boolean withSeen = names.size() != seenSent || reportsSinceSeen >= SEEN_EVERY_SECONDS - 1;
    String report = report(withSeen ? names : null);
    String failure = sender.send(report);
    if (failure == null) {
      pending.clear();
      dropped = 0;
      if (withSeen) {
        seenSent = names.size();
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

  /** The report of every pending second; with the names seen unless {@code names} is null. */
  private String report(Map<String, String> names) {
    StringBuilder json = new StringBuilder(1024);
    json.append("{\"app\":");
    Json.string(json, app);
    json.append(",\"instance\":");
    Json.string(json, instance);
    if (lane != null) {
      json.append(",\"lane\":");
      Json.string(json, lane);
    }
    json.append(",\"sentAt\":").append(wallClock.getAsLong());
    json.append(",\"dropped\":").append(dropped);
    if (names != null) {
      appendSeen(json, names);
    }
    json.append(",\"seconds\":[");
    boolean first = true;
    for (String second : pending) {
      if (!first) {
        json.append(',');
      }
      first = false;
      json.append(second);
    }
    json.append("]}");
    return json.toString();
  }

  private static void appendSeen(StringBuilder json, Map<String, String> names) {
    json.append(",\"seen\":[");
    int n = 0;
    for (Map.Entry<String, String> e : names.entrySet()) {
      if (n++ >= MAX_SEEN) {
        break;
      }
      if (n > 1) {
        json.append(',');
      }
      json.append("{\"name\":");
      Json.string(json, e.getKey());
      json.append(",\"kind\":");
      Json.string(json, e.getValue());
      json.append('}');
    }
    json.append(']');
  }
}
