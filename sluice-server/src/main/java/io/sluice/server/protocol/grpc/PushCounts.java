package io.sluice.server.protocol.grpc;

import java.util.concurrent.atomic.LongAdder;

/**
 * Pushes to clients over all connections, counted for the server's metrics: sent on a stream,
 * acknowledged by the client, and failed after being sent (the client answered an error, did not
 * answer in time, or its connection closed first). Incremented from any thread; no lock.
 */
public final class PushCounts {
  final LongAdder sent = new LongAdder();
  final LongAdder acknowledged = new LongAdder();
  final LongAdder failed = new LongAdder();

  public long sent() {
    return sent.sum();
  }

  public long acknowledged() {
    return acknowledged.sum();
  }

  public long failed() {
    return failed.sum();
  }
}
