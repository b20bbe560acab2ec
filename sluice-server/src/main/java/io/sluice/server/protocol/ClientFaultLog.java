package io.sluice.server.protocol;

import io.sluice.server.clock.ServerClock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the network edges report a client's fault (a malformed frame, a refused connection, an
 * oversized header): one short line per cause at most every {@value #INTERVAL_MILLIS} ms, saying
 * how many more of that cause came meanwhile, never a stack trace, and written on the given
 * executor, never on the event loop that saw the fault. A flood of bad input costs a counter
 * increment per fault and a bounded number of lines.
 *
 * <p>Causes are few fixed strings chosen by the callers (plus the exception's class); beyond
 * {@value #MAX_CAUSES} distinct causes, the rest share one.
 */
public final class ClientFaultLog {
  private static final Logger log = LoggerFactory.getLogger(ClientFaultLog.class);
  static final long INTERVAL_MILLIS = 10_000;
  static final int MAX_CAUSES = 256;
  private static final int MAX_DETAIL = 160;

  private final ServerClock clock;
  private final Executor writer;
  private final Consumer<String> sink;
  private final Map<String, Cause> causes = new ConcurrentHashMap<>();

  private static final class Cause {
    final AtomicLong nextLineAtMillis = new AtomicLong();
    final AtomicLong suppressed = new AtomicLong();
  }

  /**
   * @param writer writes the lines (one thread, off the event loops); lines it refuses are dropped
   */
  public ClientFaultLog(ServerClock clock, Executor writer) {
    this(clock, writer, line -> log.warn("client fault: {}", line));
  }

  ClientFaultLog(ServerClock clock, Executor writer, Consumer<String> sink) {
    this.clock = clock;
    this.writer = writer;
    this.sink = sink;
  }

  /** Notes a client's fault of kind {@code cause}, with a detail for the line (e.g. its peer). */
  public void note(String cause, String detail) {
    Cause counter = causes.get(cause);
    if (counter == null) {
      String key = causes.size() >= MAX_CAUSES ? "other client faults" : cause;
      counter = causes.computeIfAbsent(key, k -> new Cause());
    }
    long now = clock.currentTimeMillis();
    long next = counter.nextLineAtMillis.get();
    if (now < next || !counter.nextLineAtMillis.compareAndSet(next, now + INTERVAL_MILLIS)) {
      counter.suppressed.incrementAndGet();
      return;
    }
    long more = counter.suppressed.getAndSet(0);
    String line =
        cause
            + ": "
            + shorten(detail)
            + (more > 0
                ? " (and " + more + " more in the last " + INTERVAL_MILLIS / 1000 + " s)"
                : "");
    try {
      writer.execute(() -> sink.accept(line));
    } catch (RejectedExecutionException full) {
      counter.suppressed.incrementAndGet();
    }
  }

  /** Notes a fault the network stack raised: its class names the cause, its message the detail. */
  public void note(String where, Throwable fault) {
    note(where + " " + fault.getClass().getSimpleName(), String.valueOf(fault.getMessage()));
  }

  private static String shorten(String detail) {
    if (detail == null) {
      return "";
    }
    int newline = detail.indexOf('\n');
    String line = newline < 0 ? detail : detail.substring(0, newline);
    return line.length() <= MAX_DETAIL ? line : line.substring(0, MAX_DETAIL) + "…";
  }
}
