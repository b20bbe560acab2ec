package io.sluice.server.protocol.grpc;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import io.sluice.server.clock.ServerClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How far behind their work the gRPC event loops are: each reading posts a marker task to every
 * loop that has none waiting, and a loop's lag is how long its marker has been waiting, or how long
 * the last one waited before it ran. A loop that has fallen behind reads its clients' messages
 * late, so their silence is the node's, not theirs.
 *
 * <p>Concurrency: {@link #nanos} is called from one thread at a time (the idle sweep); markers run
 * on the loops. One marker at most per loop is ever queued.
 */
final class EventLoopLag {
  private static final long NONE = Long.MIN_VALUE;

  private final ServerClock clock;
  private final List<EventExecutor> loops = new ArrayList<>();
  private final AtomicLongArray postedAt;
  private final AtomicLongArray lastWait;

  EventLoopLag(ServerClock clock, EventExecutorGroup group) {
    this.clock = clock;
    for (EventExecutor loop : group) {
      loops.add(loop);
    }
    postedAt = new AtomicLongArray(loops.size());
    lastWait = new AtomicLongArray(loops.size());
    for (int i = 0; i < loops.size(); i++) {
      postedAt.set(i, NONE);
    }
  }

  /** The lag of the slowest loop now, in nanoseconds. */
  long nanos() {
    long now = clock.nanoTime();
    long worst = 0;
    for (int i = 0; i < loops.size(); i++) {
      long posted = postedAt.get(i);
      if (posted != NONE) {
        worst = Math.max(worst, now - posted);
        continue;
      }
      worst = Math.max(worst, lastWait.get(i));
      postedAt.set(i, now);
      int loop = i;
      try {
        loops
            .get(i)
            .execute(
                () -> {
                  lastWait.set(loop, clock.nanoTime() - postedAt.get(loop));
                  postedAt.set(loop, NONE);
                });
      } catch (RejectedExecutionException shuttingDown) {
        postedAt.set(i, NONE);
      }
    }
    return worst;
  }
}
