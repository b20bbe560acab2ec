package io.sluice.server.testing;

import io.sluice.server.clock.ServerClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test says so. */
public final class ManualClock implements ServerClock {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final long wallOffsetMillis = 1_700_000_000_000L;

  @Override
  public long currentTimeMillis() {
    return wallOffsetMillis + nanos.get() / 1_000_000;
  }

  @Override
  public long nanoTime() {
    return nanos.get();
  }

  public void advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
  }
}
