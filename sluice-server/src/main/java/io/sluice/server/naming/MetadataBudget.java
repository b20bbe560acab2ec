package io.sluice.server.naming;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Characters of metadata (keys and values) held by all ephemeral instances together, against one
 * bound: a registration that would grow them past it is refused ({@code OVERLOADED}, naming the
 * limit) and changes nothing; shrinking always succeeds. Ephemeral instances only: persistent ones
 * are replicated state, bounded by their own per-instance limits.
 */
final class MetadataBudget {
  private final long max;
  private final AtomicLong held = new AtomicLong();

  MetadataBudget(long max) {
    this.max = max;
  }

  static long sizeOf(List<Instance> instances) {
    long size = 0;
    if (instances == null) {
      return 0;
    }
    for (Instance instance : instances) {
      for (Map.Entry<String, String> entry : instance.metadata().entrySet()) {
        size += entry.getKey().length() + entry.getValue().length();
      }
    }
    return size;
  }

  /** Moves the holding from {@code before} to {@code after} bytes, or throws and moves nothing. */
  void change(long before, long after) {
    long growth = after - before;
    if (growth <= 0) {
      held.addAndGet(growth);
      return;
    }
    while (true) {
      long now = held.get();
      if (now + growth > max) {
        throw NamingException.overloaded(
            "instance metadata is full: instances hold "
                + now
                + " of the "
                + max
                + " characters allowed (max-instance-metadata-bytes)");
      }
      if (held.compareAndSet(now, now + growth)) {
        return;
      }
    }
  }

  long held() {
    return held.get();
  }
}
