package io.sluice.server.protocol.http;

import java.time.Duration;

/**
 * The HTTP port's bounds on what clients hold: open connections, silence on a connection, the time
 * from a request's first byte to the end of its headers, and request-body bytes buffered at once
 * across every request being read.
 */
public record HttpLimits(
    int maxConnections, Duration idleTimeout, Duration headerTimeout, long maxBufferedBodyBytes) {
  /** Bounds high enough not to matter, for tests of other things. */
  public static final HttpLimits GENEROUS =
      new HttpLimits(
          Integer.MAX_VALUE, Duration.ofMinutes(10), Duration.ofMinutes(10), Long.MAX_VALUE);
}
