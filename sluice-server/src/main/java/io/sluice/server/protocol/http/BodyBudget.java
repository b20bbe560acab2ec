package io.sluice.server.protocol.http;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Request-body bytes buffered now across every request of the port, against one bound: a reader
 * reserves each chunk before keeping it and releases all it reserved once the body is handed on or
 * dropped. Many slow large bodies at once then meet a 503 instead of the heap's end.
 */
final class BodyBudget {
  private final long max;
  private final AtomicLong reserved = new AtomicLong();

  BodyBudget(long max) {
    this.max = max;
  }

  /** Reserves {@code bytes}; false (and nothing reserved) when that would pass the bound. */
  boolean tryReserve(long bytes) {
    while (true) {
      long now = reserved.get();
      if (now + bytes > max) {
        return false;
      }
      if (reserved.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  void release(long bytes) {
    reserved.addAndGet(-bytes);
  }

  long max() {
    return max;
  }

  long reserved() {
    return reserved.get();
  }
}
