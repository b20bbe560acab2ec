package io.sluice.bench.load;

import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Tallies failures by kind so a run that had errors says which. The first failure of each kind is
 * printed to stderr when it happens; the counts go in the summary.
 */
final class Errors {
  private static final Map<String, LongAdder> byKind = new ConcurrentHashMap<>();

  private Errors() {}

  static void note(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    String message = String.valueOf(cause.getMessage());
    String kind =
        cause.getClass().getSimpleName()
            + ": "
            + (message.length() > 120 ? message.substring(0, 120) : message);
    LongAdder count = byKind.computeIfAbsent(kind, k -> new LongAdder());
    if (count.sum() == 0) {
      System.err.println("load: first failure of its kind: " + kind);
    }
    count.increment();
  }

  /** The failures counted so far, and forgets them. */
  static Map<String, Long> drain() {
    Map<String, Long> out = new java.util.TreeMap<>();
    byKind.forEach((kind, count) -> out.put(kind, count.sum()));
    byKind.clear();
    return out;
  }
}
