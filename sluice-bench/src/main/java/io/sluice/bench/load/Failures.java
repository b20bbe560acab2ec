package io.sluice.bench.load;

import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Tallies the failures of a run by kind so that a run with errors says which. The first failure of
 * each kind is printed to {@code log} when it happens; the counts go in the summary. Safe from any
 * thread.
 */
final class Failures {
  private final Map<String, LongAdder> byKind = new ConcurrentHashMap<>();
  private final PrintStream log;

  Failures(PrintStream log) {
    this.log = log;
  }

  void note(Throwable failure) {
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
      log.println("load: first failure of its kind: " + kind);
    }
    count.increment();
  }

  /** The failures counted so far, and forgets them. */
  Map<String, Long> drain() {
    Map<String, Long> out = new java.util.TreeMap<>();
    byKind.forEach((kind, count) -> out.put(kind, count.sum()));
    byKind.clear();
    return out;
  }
}
