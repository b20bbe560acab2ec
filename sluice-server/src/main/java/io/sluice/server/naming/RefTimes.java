package io.sluice.server.naming;

import io.sluice.server.clock.ServerClock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@code lastRefTime} stamps of the registry. Clients keep a service's list and drop any answer
 * whose {@code lastRefTime} is older than what they hold ("out of date data received"), so every
 * stamp is the wall-clock time, but never below one given before: a change gets a stamp above every
 * earlier one, and a service with no state (unknown, or just subscribed) is stamped with at least
 * the newest, as Nacos stamps an empty service with the current time.
 *
 * <p>Concurrency: lock-free; one CAS per change.
 */
final class RefTimes {
  private final ServerClock clock;
  private final AtomicLong newest = new AtomicLong();

  RefTimes(ServerClock clock) {
    this.clock = clock;
  }

  /** A stamp for a change: above every stamp given so far. */
  long next() {
    long now = clock.currentTimeMillis();
    return newest.updateAndGet(previous -> Math.max(now, previous + 1));
  }

  /** A stamp for a service with no change to its name: now, and at least the newest stamp. */
  long current() {
    return Math.max(clock.currentTimeMillis(), newest.get());
  }
}
