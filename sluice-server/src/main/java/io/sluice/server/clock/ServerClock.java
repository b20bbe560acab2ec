package io.sluice.server.clock;

/**
 * The server's only source of time, injected everywhere so tests can move it: wall-clock millis for
 * what clients see (modification times, connection ids) and a monotonic nano tick for timeouts and
 * intervals.
 */
public interface ServerClock {
  long currentTimeMillis();

  long nanoTime();

  ServerClock SYSTEM =
      new ServerClock() {
        @Override
        public long currentTimeMillis() {
          return System.currentTimeMillis();
        }

        @Override
        public long nanoTime() {
          return System.nanoTime();
        }
      };
}
