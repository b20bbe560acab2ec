package io.sluice.flow.internal.system;

import io.sluice.flow.internal.stats.LiveStatistics;
import java.util.concurrent.atomic.AtomicLong;

/**
 * All inbound traffic of the application, as system rules see it (Sentinel's {@code ENTRY_NODE}):
 * calls in flight and statistics. It lives as long as the registry, across rule reloads; calls
 * count here only while a system rule is loaded (their permits say so, so a release always undoes
 * exactly what its entry did).
 */
public final class InboundTraffic {

  /** The statistics' resource name. */
  public static final String NAME = "sluice:inbound";

  private final AtomicLong concurrency = new AtomicLong();
  private final LiveStatistics statistics = new LiveStatistics(NAME);

  public LiveStatistics statistics() {
    return statistics;
  }

  /** Inbound calls in flight (counted ones). */
  public long concurrency() {
    return concurrency.get();
  }

  long enter() {
    return concurrency.incrementAndGet();
  }

  void undoEnter() {
    concurrency.decrementAndGet();
  }

  /** Records a counted inbound call's release. */
  public void complete(long rtNanos, boolean failed) {
    concurrency.decrementAndGet();
    statistics.recordCompletion(rtNanos, failed);
  }
}
