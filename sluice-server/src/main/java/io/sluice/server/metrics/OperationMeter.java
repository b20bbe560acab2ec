package io.sluice.server.metrics;

import java.util.concurrent.atomic.LongAdder;

/**
 * What one operation of one protocol cost: a {@link Histogram} of its durations and a count of its
 * failures. One instance per operation, made once (when the operation's handler is registered or
 * the HTTP routes are mounted) and kept by whoever records, so recording is a field read and two or
 * three {@link LongAdder} increments: no lookup by name, no allocation, no lock.
 */
public final class OperationMeter {
  final String protocol;
  final String operation;
  final Histogram durations = new Histogram();
  final LongAdder failures = new LongAdder();

  OperationMeter(String protocol, String operation) {
    this.protocol = protocol;
    this.operation = operation;
  }

  /**
   * Records one request.
   *
   * @param failed the server failed it (HTTP 5xx, a gRPC response that is not a success)
   */
  public void record(long nanos, boolean failed) {
    durations.record(nanos);
    if (failed) {
      failures.increment();
    }
  }

  /** Requests recorded so far. */
  public long count() {
    return durations.count();
  }

  public String operation() {
    return operation;
  }
}
