package io.sluice.flow.internal.flow;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A {@code limitApp: "other"} rule: each origin gets its own limiter (Sentinel counts each origin
 * separately), created on first sight. At most {@code maxOrigins} origins get one; later origins
 * share one overflow limiter, exact for their sum, and are counted. Origins are app names, few and
 * long-lived, so nothing is evicted.
 */
final class PerOriginCheck extends FlowCheck {

  private final Supplier<FlowCheck> factory;
  private final int maxOrigins;
  private final AtomicLong overflowCounter;
  private final ConcurrentHashMap<String, FlowCheck> byOrigin = new ConcurrentHashMap<>();
  private final AtomicInteger size = new AtomicInteger();
  private final FlowCheck overflow;

  PerOriginCheck(
      FlowCheck template, Supplier<FlowCheck> factory, int maxOrigins, AtomicLong overflowCounter) {
    super(template.rule(), template.serial());
    this.factory = factory;
    this.maxOrigins = maxOrigins;
    this.overflowCounter = overflowCounter;
    this.overflow = template;
  }

  @Override
  public long tryAcquire(long now, String origin, String entrance) {
    FlowCheck check = byOrigin.get(origin);
    if (check == null) {
      check = checkForNewOrigin(origin);
    }
    return check.tryAcquire(now, origin, entrance);
  }

  private FlowCheck checkForNewOrigin(String origin) {
    if (size.get() >= maxOrigins) {
      overflowCounter.getAndIncrement();
      return overflow;
    }
    FlowCheck fresh = factory.get();
    FlowCheck existing = byOrigin.putIfAbsent(origin, fresh);
    if (existing != null) {
      return existing;
    }
    size.getAndIncrement();
    return fresh;
  }
}
