package io.sluice.server.auth;

import io.sluice.server.clock.ServerClock;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Logins per source address: each source may log in {@code perMinute} times a minute, in bursts of
 * up to {@code burst}; beyond that its logins are refused until it slows down. Every login costs a
 * password hash (a few hundred ms of CPU), so without this one source could keep the hashing queue
 * full and lock everyone else out, or guess passwords as fast as the server hashes.
 *
 * <p>A generic cell rate algorithm: one long per source, the time its next login is due; a login is
 * allowed while that time is at most {@code burst} intervals ahead of now. Safe for concurrent use
 * (compare-and-set per source, through the map). The table holds at most {@link #MAX_SOURCES}
 * sources: when full, sources back to a whole burst are dropped; if it is still full (that many
 * sources logging in within a burst's time), a new source is let through unthrottled rather than
 * locked out — the server-wide bound on logins waiting for a hash still holds.
 */
public final class LoginThrottle {
  static final int MAX_SOURCES = 100_000;

  private final ServerClock clock;
  private final long intervalNanos;
  private final long burstNanos;
  private final int perMinute;
  private final ConcurrentHashMap<String, Long> nextDue = new ConcurrentHashMap<>();

  /**
   * @param perMinute logins a source may make each minute, at least 1
   * @param burst logins a source may make at once after a quiet spell, at least 1
   */
  public LoginThrottle(ServerClock clock, int perMinute, int burst) {
    if (perMinute < 1 || burst < 1) {
      throw new IllegalArgumentException(
          "logins per minute and burst must be at least 1, were " + perMinute + ", " + burst);
    }
    this.clock = clock;
    this.perMinute = perMinute;
    this.intervalNanos = TimeUnit.MINUTES.toNanos(1) / perMinute;
    this.burstNanos = intervalNanos * burst;
  }

  /**
   * Counts a login from {@code source} and returns 0 when it may go ahead; otherwise the whole
   * seconds until it may try again (the attempt is then not counted).
   */
  public long secondsToWait(String source) {
    long now = clock.nanoTime();
    if (nextDue.size() >= MAX_SOURCES && !nextDue.containsKey(source)) {
      nextDue.values().removeIf(due -> due - now <= 0);
      if (nextDue.size() >= MAX_SOURCES) {
        return 0;
      }
    }
    long[] wait = new long[1];
    nextDue.compute(
        source,
        (key, due) -> {
          long from = due == null || due - now < 0 ? now : due;
          long ahead = from - now;
          if (ahead + intervalNanos > burstNanos) {
            wait[0] = ahead + intervalNanos - burstNanos;
            return due;
          }
          return from + intervalNanos;
        });
    return wait[0] == 0 ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toSeconds(wait[0] + 999_999_999L));
  }

  public int perMinute() {
    return perMinute;
  }
}
