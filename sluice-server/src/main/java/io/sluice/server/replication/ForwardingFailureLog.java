package io.sluice.server.replication;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.ratis.protocol.RaftPeerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a follower says when forwarded writes fail an attempt: one short line at most every {@value
 * #INTERVAL_SECONDS} s per node, naming the peer tried, the cause (its class and the first line of
 * its message, never a stack trace) and the wait before the next attempt, and counting the attempts
 * that failed meanwhile. A failover fails tens of attempts per node, one per batch in flight per
 * retry; Ratis's own client wrote each at ERROR with its stack trace, so that logger is off (see
 * {@code levels.properties}) and this is the one record of them.
 *
 * <p>A failed attempt is not a failed write: the retry policy tries again until the request
 * timeout, and only a write that runs out of attempts reaches its caller as an error.
 *
 * <p>Thread-safe and lock-free: Ratis's client threads call {@link #attemptFailed} concurrently;
 * one compare-and-set decides which of them writes the line.
 */
final class ForwardingFailureLog {
  private static final Logger log = LoggerFactory.getLogger(ForwardingFailureLog.class);
  static final long INTERVAL_SECONDS = 10;
  private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(INTERVAL_SECONDS);
  private static final int MAX_DETAIL = 160;
  private static final long ANY_TIME = Long.MIN_VALUE;

  private final LongSupplier nanoClock;
  private final Consumer<String> sink;

  /**
   * When the next line may be written, on {@link #nanoClock}; {@link #ANY_TIME} before the first.
   */
  private final AtomicLong nextLineAt = new AtomicLong(ANY_TIME);

  private final AtomicLong heldBack = new AtomicLong();

  ForwardingFailureLog() {
    this(System::nanoTime, line -> log.warn("forwarding writes to the leader: {}", line));
  }

  ForwardingFailureLog(LongSupplier nanoClock, Consumer<String> sink) {
    this.nanoClock = nanoClock;
    this.sink = sink;
  }

  /** Notes that an attempt to forward a batch to {@code to} failed, to be tried again. */
  void attemptFailed(RaftPeerId to, Throwable cause, long retryInMillis) {
    long now = nanoClock.getAsLong();
    long next = nextLineAt.get();
    boolean due = next == ANY_TIME || now - next >= 0;
    if (!due || !nextLineAt.compareAndSet(next, now + INTERVAL_NANOS)) {
      heldBack.incrementAndGet();
      return;
    }
    long more = heldBack.getAndSet(0);
    sink.accept(
        "an attempt to "
            + to
            + " failed ("
            + summary(cause)
            + "), next in "
            + retryInMillis
            + " ms"
            + (more > 0
                ? "; " + more + " more attempts failed in the last " + INTERVAL_SECONDS + " s"
                : ""));
  }

  /** The innermost cause's simple class name and the first line of its message, shortened. */
  static String summary(Throwable cause) {
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = String.valueOf(root.getMessage());
    int newline = message.indexOf('\n');
    if (newline >= 0) {
      message = message.substring(0, newline);
    }
    if (message.length() > MAX_DETAIL) {
      message = message.substring(0, MAX_DETAIL) + "…";
    }
    return root.getClass().getSimpleName() + ": " + message;
  }
}
