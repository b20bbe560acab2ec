package io.sluice.agent.governance;

import io.sluice.agent.logging.AgentLog;
import io.sluice.flow.BreakerListener;
import io.sluice.flow.BreakerState;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Logs every circuit breaker state change as one line ({@code breaker OPEN (was CLOSED) on GET
 * /work: degrade rule {...}}), at most {@link #LINES_PER_WINDOW} lines per {@link #WINDOW_NANOS}: a
 * flapping breaker under load cannot flood the log. Lines past the budget are counted and the count
 * is reported by the next line written.
 *
 * <p>Called on the thread that caused the change (a request's), so it must be quick: the budget is
 * two atomics; only the lines written take the log's lock.
 */
public final class BreakerLog implements BreakerListener {
  static final int LINES_PER_WINDOW = 10;
  static final long WINDOW_NANOS = 10_000_000_000L;

  private final AgentLog log;
  private final LongSupplier nanoTime;
  private final AtomicLong window = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong suppressed = new AtomicLong();

  public BreakerLog(AgentLog log, LongSupplier nanoTime) {
    this.log = log;
    this.nanoTime = nanoTime;
  }

  @Override
  public void onStateChange(String resource, String rule, BreakerState from, BreakerState to) {
    long now = nanoTime.getAsLong();
    long start = window.get();
    if (start == Long.MIN_VALUE || now - start >= WINDOW_NANOS) {
      if (window.compareAndSet(start, now)) {
        written.set(0);
      }
    }
    if (written.incrementAndGet() > LINES_PER_WINDOW) {
      suppressed.incrementAndGet();
      return;
    }
    long skipped = suppressed.getAndSet(0);
    String line =
        "breaker "
            + to
            + " (was "
            + from
            + ") on "
            + resource
            + ": "
            + rule
            + (to == BreakerState.OPEN ? "; calls are refused until it half-opens" : "")
            + (skipped > 0
                ? " ("
                    + skipped
                    + " earlier state change"
                    + (skipped == 1 ? "" : "s")
                    + " not logged: more than "
                    + LINES_PER_WINDOW
                    + " in "
                    + WINDOW_NANOS / 1_000_000_000L
                    + " s)"
                : "");
    if (to == BreakerState.OPEN) {
      log.warn(line);
    } else {
      log.info(line);
    }
  }
}
