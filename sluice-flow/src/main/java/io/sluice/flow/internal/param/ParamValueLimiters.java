package io.sluice.flow.internal.param;

import io.sluice.flow.internal.limit.Pacer;
import io.sluice.flow.internal.limit.SlidingWindowLimiter;
import io.sluice.flow.internal.rule.FlowRuleSpec;
import io.sluice.flow.internal.rule.ParamFlowRuleSpec;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The per-value limiters of one hot-parameter rule on one resource. Each value gets its own exact
 * limiter ({@link SlidingWindowLimiter}, or a {@link Pacer} for the rate-limiter behaviour); values
 * listed in {@code paramFlowItemList} get theirs with their own count, created up front and kept.
 *
 * <p><b>Bounded memory.</b> At most {@code maxValues} other values have a limiter. When the table
 * is full, a sweep (at most once per quarter window) evicts limiters idle for a whole window: such
 * a limiter remembers nothing a fresh one would not, so eviction never lets a value exceed its
 * limit. If no limiter is idle, the new value shares one overflow limiter with the rule's count
 * (exact for the overflowed values together, and counted in {@code overflowCounter}).
 *
 * <p><b>Eviction race.</b> A caller stamps a limiter's last-use time with a CAS before using it;
 * the sweep retires a limiter with a CAS from the idle stamp it saw to {@code RETIRED}, then
 * removes it. A caller that finds its limiter retired looks the value up again, so no admission
 * ever lands in a limiter that has been replaced.
 */
public final class ParamValueLimiters {

  /** Limiters per value hold at most this many sliding-log blocks (memory per value ~300 B). */
  static final int BLOCKS_PER_VALUE = 32;

  private static final long RETIRED = Long.MIN_VALUE;

  private final ParamFlowRuleSpec rule;
  private final int maxValues;
  private final AtomicLong overflowCounter;
  private final Map<Object, ValueLimiter> exceptions;
  private final ConcurrentHashMap<Object, ValueLimiter> values = new ConcurrentHashMap<>();
  private final AtomicInteger size = new AtomicInteger();
  private final ValueLimiter overflow;
  private final long idleNanos;
  private final AtomicLong nextSweepAt = new AtomicLong(Long.MIN_VALUE);

  public ParamValueLimiters(ParamFlowRuleSpec rule, int maxValues, AtomicLong overflowCounter) {
    this.rule = rule;
    this.maxValues = maxValues;
    this.overflowCounter = overflowCounter;
    Map<Object, ValueLimiter> items = new HashMap<>();
    for (Map.Entry<Object, Long> e : rule.exceptions().entrySet()) {
      items.put(e.getKey(), newLimiter(e.getValue()));
    }
    this.exceptions = Map.copyOf(items);
    this.overflow = newLimiter(rule.count());
    long window = rule.durationInSec() * 1_000_000_000L;
    this.idleNanos = window + rule.maxQueueingTimeMs() * 1_000_000L;
  }

  public ParamFlowRuleSpec rule() {
    return rule;
  }

  /** Number of values with their own limiter (exception items not counted). */
  public int trackedValues() {
    return size.get();
  }

  /**
   * Admits a call whose argument is {@code value}; a collection or array argument is admitted only
   * if each element is (as in Sentinel). A null argument is not limited.
   *
   * @return the wait in ns (0 = now), or -1 if rejected
   */
  public long tryAcquire(long now, Object value) {
    if (value == null) {
      return 0;
    }
    if (value instanceof Collection<?> collection) {
      long wait = 0;
      for (Iterator<?> it = collection.iterator(); it.hasNext(); ) {
        long w = tryAcquireOne(now, it.next());
        if (w < 0) {
          return -1;
        }
        wait = Math.max(wait, w);
      }
      return wait;
    }
    if (value instanceof Object[] array) {
      long wait = 0;
      for (Object element : array) {
        long w = tryAcquireOne(now, element);
        if (w < 0) {
          return -1;
        }
        wait = Math.max(wait, w);
      }
      return wait;
    }
    return tryAcquireOne(now, value);
  }

  private long tryAcquireOne(long now, Object value) {
    if (value == null) {
      return 0;
    }
    if (!exceptions.isEmpty()) {
      ValueLimiter item = exceptions.get(value);
      if (item != null) {
        return item.tryAcquire(now);
      }
    }
    while (true) {
      ValueLimiter limiter = values.get(value);
      if (limiter == null) {
        limiter = admitNewValue(now, value);
        if (limiter == overflow) {
          return overflow.tryAcquire(now);
        }
      }
      if (limiter.stamp(now)) {
        return limiter.tryAcquire(now);
      }
      // Retired by a sweep between the lookup and the stamp: look the value up again.
    }
  }

  private ValueLimiter admitNewValue(long now, Object value) {
    if (size.get() >= maxValues) {
      sweep(now);
      if (size.get() >= maxValues) {
        overflowCounter.getAndIncrement();
        return overflow;
      }
    }
    ValueLimiter fresh = newLimiter(rule.count());
    ValueLimiter existing = values.putIfAbsent(value, fresh);
    if (existing != null) {
      return existing;
    }
    size.getAndIncrement();
    return fresh;
  }

  /** Evicts limiters idle for a whole window; at most once per quarter window. */
  private void sweep(long now) {
    long due = nextSweepAt.get();
    if (now < due || !nextSweepAt.compareAndSet(due, now + Math.max(1, idleNanos / 4))) {
      return;
    }
    for (Iterator<Map.Entry<Object, ValueLimiter>> it = values.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<Object, ValueLimiter> entry = it.next();
      ValueLimiter limiter = entry.getValue();
      if (limiter.retireIfIdleSince(now - idleNanos) && values.remove(entry.getKey(), limiter)) {
        size.getAndDecrement();
      }
    }
  }

  private ValueLimiter newLimiter(double count) {
    return new ValueLimiter(rule, count);
  }

  /** One value's limiter and its last-use stamp. */
  static final class ValueLimiter {
    private static final VarHandle LAST_USED;

    static {
      try {
        LAST_USED =
            MethodHandles.lookup().findVarHandle(ValueLimiter.class, "lastUsed", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private final SlidingWindowLimiter window;
    private final Pacer pacer;
    private final long interval;
    private volatile long lastUsed = Long.MIN_VALUE + 1;

    ValueLimiter(ParamFlowRuleSpec rule, double count) {
      if (rule.controlBehavior() == FlowRuleSpec.BEHAVIOR_PACING) {
        this.window = null;
        this.pacer = count > 0 ? new Pacer(rule.maxQueueingTimeMs() * 1_000_000L) : null;
        this.interval = count > 0 ? Pacer.intervalFor(count / rule.durationInSec()) : 0;
      } else {
        this.window =
            SlidingWindowLimiter.forRate(
                count + rule.burstCount(), rule.durationInSec(), BLOCKS_PER_VALUE);
        this.pacer = null;
        this.interval = 0;
      }
    }

    /** Marks the limiter used at {@code now}; false if it was retired. */
    boolean stamp(long now) {
      while (true) {
        long seen = lastUsed;
        if (seen == RETIRED) {
          return false;
        }
        if (seen >= now || LAST_USED.compareAndSet(this, seen, now)) {
          return true;
        }
      }
    }

    boolean retireIfIdleSince(long idleBefore) {
      long seen = lastUsed;
      return seen != RETIRED && seen <= idleBefore && LAST_USED.compareAndSet(this, seen, RETIRED);
    }

    long tryAcquire(long now) {
      if (window != null) {
        return window.tryAcquire(now) ? 0 : -1;
      }
      return pacer == null ? -1 : pacer.tryAcquire(now, interval);
    }
  }
}
