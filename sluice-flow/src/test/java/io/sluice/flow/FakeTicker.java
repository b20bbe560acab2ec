package io.sluice.flow;

import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test moves it; doubles as a {@link Sleeper} that advances it. */
public final class FakeTicker implements Ticker, Sleeper {

  private final AtomicLong nanos;

  public FakeTicker() {
    this(1_000_000_000_000L);
  }

  public FakeTicker(long startNanos) {
    this.nanos = new AtomicLong(startNanos);
  }

  @Override
  public long read() {
    return nanos.get();
  }

  @Override
  public void sleep(long nanos) {
    advanceNanos(nanos);
  }

  public void advanceNanos(long delta) {
    nanos.addAndGet(delta);
  }

  public void advanceMillis(long delta) {
    advanceNanos(delta * 1_000_000L);
  }

  public void advanceSeconds(double delta) {
    advanceNanos(Math.round(delta * 1e9));
  }
}
