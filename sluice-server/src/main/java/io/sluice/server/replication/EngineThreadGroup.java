package io.sluice.server.replication;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread group a Ratis server's threads run in (Ratis puts each group member's apply thread,
 * leader event processor and appenders in a child of it), which remembers the first of them to die.
 * An error thrown out of such a thread, an {@link OutOfMemoryError} for one, leaves Ratis running
 * without it: no more applies, or no more commits, while it still claims to lead. Nothing in Ratis
 * reports that, so {@link RatisReplicator#failure()} asks here.
 */
final class EngineThreadGroup extends ThreadGroup {
  private static final Logger log = LoggerFactory.getLogger(EngineThreadGroup.class);

  /** Why the first thread died, or null; written by the dying thread, read by any. */
  private volatile String death;

  EngineThreadGroup(String name) {
    super(name);
  }

  @Override
  public void uncaughtException(Thread thread, Throwable failure) {
    String why = "Ratis thread '" + thread.getName() + "' died of " + failure;
    if (death == null) {
      death = why;
    }
    log.error("{}; the store takes no writes until it is restarted", why, failure);
  }

  /** Why a thread of this group died, or null while none has. */
  String death() {
    return death;
  }
}
