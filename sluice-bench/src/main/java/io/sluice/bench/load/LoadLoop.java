package io.sluice.bench.load;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Drives an asynchronous operation in one of two shapes.
 *
 * <ul>
 *   <li><b>Closed loop</b>: {@code concurrency} operations in flight; each completion starts the
 *       next. Finds the throughput ceiling; its latencies are service times under that load.
 *   <li><b>Open loop</b> (wrk2-style): operation {@code i} is due at {@code start + i / rate}, and
 *       its latency is measured from that intended time, not from when it was actually sent. A
 *       server that stalls therefore shows the whole stall in every request that should have gone
 *       out during it (no coordinated omission). At most {@code maxInFlight} are outstanding; when
 *       that bound is hit the pacer waits, and the wait still counts in the latencies.
 * </ul>
 *
 * Each run warms up (see {@link Warmup}), then measures for {@code duration} between {@link
 * Measurement#begin} and {@link Measurement#end}, then stops issuing and waits briefly for what is
 * in flight.
 */
final class LoadLoop {
  /** Starts operation {@code seq}; the future completes when it succeeded or failed. */
  @FunctionalInterface
  interface Operation {
    CompletableFuture<?> start(long seq);
  }

  /** The shape of the load. */
  sealed interface Shape permits Closed, Open {}

  record Closed(int concurrency) implements Shape {
    Closed {
      if (concurrency < 1) {
        throw new IllegalArgumentException("concurrency must be at least 1");
      }
    }
  }

  record Open(double perSecond, int maxInFlight) implements Shape {
    Open {
      if (!(perSecond > 0)) {
        throw new IllegalArgumentException("rate must be positive");
      }
    }
  }

  private final Operation operation;
  private final LatencyStats stats;
  private final Failures failures;
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean running = true;

  private LoadLoop(Operation operation, LatencyStats stats, Failures failures) {
    this.operation = operation;
    this.stats = stats;
    this.failures = failures;
  }

  static Measurement.Window run(
      Shape shape,
      Operation operation,
      LatencyStats stats,
      Measurement measurement,
      Warmup warmup,
      Duration duration,
      Failures failures)
      throws InterruptedException {
    LoadLoop loop = new LoadLoop(operation, stats, failures);
    Thread pacer = null;
    if (shape instanceof Closed closed) {
      for (int i = 0; i < closed.concurrency(); i++) {
        loop.runSlot();
      }
    } else {
      Open open = (Open) shape;
      pacer = new Thread(() -> loop.pace(open), "load-pacer");
      pacer.setDaemon(true);
      pacer.start();
    }
    measurement.warmUp(warmup);
    measurement.begin();
    Thread.sleep(duration.toMillis());
    Measurement.Window window = measurement.end();
    loop.running = false;
    if (pacer != null) {
      pacer.join(5_000);
    }
    long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (loop.inFlight.get() > 0 && System.nanoTime() < drainUntil) {
      Thread.sleep(5);
    }
    return window;
  }

  private CompletableFuture<?> startOne() {
    inFlight.incrementAndGet();
    try {
      return operation.start(sequence.getAndIncrement());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private void complete(long intendedNanos, Throwable failure) {
    inFlight.decrementAndGet();
    if (failure == null) {
      stats.record(System.nanoTime() - intendedNanos);
    } else {
      stats.error();
      failures.note(failure);
    }
  }

  /** One closed-loop slot: start, and on completion start again, without growing the stack. */
  private void runSlot() {
    while (running) {
      long start = System.nanoTime();
      CompletableFuture<?> op = startOne();
      if (op.isDone()) {
        complete(start, failureOf(op));
        continue;
      }
      op.whenComplete(
          (ok, failure) -> {
            complete(start, failure);
            runSlot();
          });
      return;
    }
  }

  private void pace(Open open) {
    double intervalNanos = 1e9 / open.perSecond();
    long t0 = System.nanoTime();
    for (long i = 0; running; i++) {
      long intended = t0 + (long) (i * intervalNanos);
      long now;
      while ((now = System.nanoTime()) < intended && running) {
        LockSupport.parkNanos(intended - now);
      }
      while (inFlight.get() >= open.maxInFlight() && running) {
        LockSupport.parkNanos(20_000);
      }
      if (!running) {
        return;
      }
      startOne().whenComplete((ok, failure) -> complete(intended, failure));
    }
  }

  private static Throwable failureOf(CompletableFuture<?> done) {
    try {
      done.join();
      return null;
    } catch (RuntimeException e) {
      return e.getCause() == null ? e : e.getCause();
    }
  }
}
