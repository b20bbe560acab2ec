package io.sluice.flow.internal.breaker;

import io.sluice.flow.BreakerListener;
import io.sluice.flow.BreakerState;
import io.sluice.flow.Ticker;
import io.sluice.flow.internal.rule.DegradeRuleSpec;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One degrade rule's circuit breaker: CLOSED → OPEN when the sliding interval's slow-call ratio,
 * error ratio or error count passes the threshold (after {@code minRequestAmount} calls); OPEN →
 * HALF_OPEN once {@code timeWindow} has passed, letting {@code probeCalls} probes through; any bad
 * probe re-opens, all probes good closes (and restarts the interval). Probes that never come back
 * are given up after {@code timeWindow}, and new probes are let through.
 *
 * <p>The whole state is one {@code long}: the state, probes issued, probes that succeeded, and the
 * time of the last transition in ms (40 bits). Every transition is a CAS on it, so exactly {@code
 * probeCalls} probes pass per half-open period and each transition is reported once. A probe is
 * recognised at release by its entry time: a call that entered at or after the transition to
 * HALF_OPEN can only have entered as a probe, because every call admitted while CLOSED entered
 * before the breaker opened, at least {@code timeWindow} (> 0) earlier.
 *
 * <p>The closed path costs a volatile read at entry and one CAS on a bucket at release; the
 * interval is summed only when a bad call is recorded, since only a bad call can push a ratio or
 * count over its threshold (Sentinel also re-checks on good calls, which can matter only in the
 * instant {@code minRequestAmount} is reached). Error breakers do not need a call's response time:
 * an untimed call is counted in the bucket of its entry time, and the clock is read only for a
 * state transition. Slow-call breakers need every call timed (their guard sees to it).
 */
public final class CircuitBreaker {

  /** {@link #tryPass} outcomes. */
  public static final int REJECTED = -1;

  public static final int PASSED = 0;
  public static final int PROBING = 1;

  private static final long CLOSED = 0;
  private static final long OPEN = 1;
  private static final long HALF_OPEN = 2;
  private static final long STATE_MASK = 3;
  private static final int ISSUED_SHIFT = 2;
  private static final int SUCCEEDED_SHIFT = 13;
  private static final long PROBE_MASK = (1L << 11) - 1;
  private static final int TIME_SHIFT = 24;
  private static final long NANOS_PER_MILLI = 1_000_000L;
  private static final VarHandle STATE_WORD;

  static {
    try {
      STATE_WORD =
          MethodHandles.lookup().findVarHandle(CircuitBreaker.class, "stateWord", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final String resource;
  private final DegradeRuleSpec rule;
  private final BreakerListener listener;
  private final Ticker clock;
  private final BreakerWindow window;
  private final long slowNanos;

  /** The packed state word (see the class doc); CAS only. */
  private volatile long stateWord = CLOSED;

  /**
   * @param clock the owner's clock (ns since its origin), read for transitions of untimed calls
   */
  public CircuitBreaker(
      String resource, DegradeRuleSpec rule, BreakerListener listener, Ticker clock) {
    this.resource = resource;
    this.rule = rule;
    this.listener = listener;
    this.clock = clock;
    this.window = new BreakerWindow(rule.statIntervalMs() * NANOS_PER_MILLI);
    this.slowNanos =
        rule.grade() == DegradeRuleSpec.GRADE_SLOW_RATIO
            ? (long) Math.min(Long.MAX_VALUE / 2, rule.count() * NANOS_PER_MILLI)
            : Long.MAX_VALUE;
  }

  /** Whether the breaker judges calls by their response time (so every call must be timed). */
  public boolean needsResponseTimes() {
    return rule.grade() == DegradeRuleSpec.GRADE_SLOW_RATIO;
  }

  /** The rule this breaker enforces. */
  public DegradeRuleSpec rule() {
    return rule;
  }

  /** The current state. */
  public BreakerState state() {
    return toState(stateWord & STATE_MASK);
  }

  /**
   * Decides whether a call entering at {@code now} may pass.
   *
   * @return {@link #PASSED}, {@link #PROBING} (passed as a half-open probe) or {@link #REJECTED}
   */
  public int tryPass(long now) {
    while (true) {
      long word = stateWord;
      long current = word & STATE_MASK;
      if (current == CLOSED) {
        return PASSED;
      }
      long nowMillis = now / NANOS_PER_MILLI;
      long since = word >>> TIME_SHIFT;
      if (current == OPEN) {
        if (nowMillis < since + rule.openMillis()) {
          return REJECTED;
        }
        if (STATE_WORD.compareAndSet(this, word, halfOpen(nowMillis, 1, 0))) {
          notify(BreakerState.OPEN, BreakerState.HALF_OPEN);
          return PROBING;
        }
        continue;
      }
      long issued = (word >>> ISSUED_SHIFT) & PROBE_MASK;
      if (issued < rule.probeCalls()) {
        if (STATE_WORD.compareAndSet(this, word, word + (1L << ISSUED_SHIFT))) {
          return PROBING;
        }
        continue;
      }
      if (nowMillis >= since + rule.openMillis()) {
        if (STATE_WORD.compareAndSet(this, word, halfOpen(nowMillis, 1, 0))) {
          return PROBING;
        }
        continue;
      }
      return REJECTED;
    }
  }

  /** Gives a probe slot back when another rule blocked the call after this breaker passed it. */
  public void cancelProbe() {
    while (true) {
      long word = stateWord;
      long issued = (word >>> ISSUED_SHIFT) & PROBE_MASK;
      if ((word & STATE_MASK) != HALF_OPEN || issued == 0) {
        return;
      }
      if (STATE_WORD.compareAndSet(this, word, word - (1L << ISSUED_SHIFT))) {
        return;
      }
    }
  }

  /**
   * Records a released call.
   *
   * @param startNanos when the call entered
   * @param endNanos when it was released, or -1 if the call was not timed
   * @param failed whether the caller reported an error
   */
  public void onComplete(long startNanos, long endNanos, boolean failed) {
    boolean bad =
        rule.grade() == DegradeRuleSpec.GRADE_SLOW_RATIO
            ? endNanos >= 0 && endNanos - startNanos > slowNanos
            : failed;
    long word = stateWord;
    long current = word & STATE_MASK;
    if (current == CLOSED) {
      long at = endNanos >= 0 ? endNanos : startNanos;
      window.record(at, bad);
      if (bad && thresholdExceeded(at)) {
        open(word, BreakerState.CLOSED, endNanos >= 0 ? endNanos : clock.read());
      }
      return;
    }
    if (current == HALF_OPEN && startNanos / NANOS_PER_MILLI >= word >>> TIME_SHIFT) {
      completeProbe(bad, endNanos >= 0 ? endNanos : clock.read());
    }
  }

  private void completeProbe(boolean bad, long now) {
    while (true) {
      long word = stateWord;
      if ((word & STATE_MASK) != HALF_OPEN) {
        return;
      }
      if (bad) {
        if (open(word, BreakerState.HALF_OPEN, now)) {
          return;
        }
        continue;
      }
      long succeeded = ((word >>> SUCCEEDED_SHIFT) & PROBE_MASK) + 1;
      if (succeeded >= rule.probeCalls()) {
        if (STATE_WORD.compareAndSet(
            this, word, ((now / NANOS_PER_MILLI) << TIME_SHIFT) | CLOSED)) {
          window.restart(now);
          notify(BreakerState.HALF_OPEN, BreakerState.CLOSED);
          return;
        }
        continue;
      }
      if (STATE_WORD.compareAndSet(this, word, word + (1L << SUCCEEDED_SHIFT))) {
        return;
      }
    }
  }

  private boolean open(long word, BreakerState from, long now) {
    if (STATE_WORD.compareAndSet(this, word, ((now / NANOS_PER_MILLI) << TIME_SHIFT) | OPEN)) {
      notify(from, BreakerState.OPEN);
      return true;
    }
    return false;
  }

  private boolean thresholdExceeded(long now) {
    long totals = window.totalsAt(now);
    long total = totals >>> 32;
    long bad = totals & 0xFFFF_FFFFL;
    if (total < rule.minRequestAmount()) {
      return false;
    }
    return switch (rule.grade()) {
      case DegradeRuleSpec.GRADE_SLOW_RATIO -> {
        double ratio = (double) bad / total;
        yield ratio > rule.slowRatioThreshold()
            || (ratio == 1.0 && rule.slowRatioThreshold() == 1.0);
      }
      case DegradeRuleSpec.GRADE_ERROR_RATIO -> (double) bad / total > rule.count();
      default -> bad > rule.count();
    };
  }

  private static long halfOpen(long nowMillis, long issued, long succeeded) {
    return (nowMillis << TIME_SHIFT)
        | (succeeded << SUCCEEDED_SHIFT)
        | (issued << ISSUED_SHIFT)
        | HALF_OPEN;
  }

  private void notify(BreakerState from, BreakerState to) {
    if (listener == null) {
      return;
    }
    try {
      listener.onStateChange(resource, rule.describe(), from, to);
    } catch (RuntimeException ignored) {
      // A listener must not break the call that happened to cause the transition.
    }
  }

  private static BreakerState toState(long bits) {
    return bits == CLOSED
        ? BreakerState.CLOSED
        : bits == OPEN ? BreakerState.OPEN : BreakerState.HALF_OPEN;
  }
}
