package io.sluice.server.testing;

import java.lang.reflect.InvocationTargetException;
import org.junit.jupiter.api.Assumptions;

/**
 * The threads of the store's Ratis engine, for tests that kill one as an OutOfMemoryError would:
 * {@code Thread.stop()} throws an asynchronous error into the thread wherever it is. The JDK
 * removed {@code Thread.stop()} in Java 20; there the calling test is skipped, saying so.
 */
public final class EngineThreads {
  private EngineThreads() {}

  /**
   * A live thread of a store's Ratis engine whose name ends with {@code role}, e.g. {@code
   * LeaderStateImpl} (the leader's event processor) or {@code StateMachineUpdater} (the apply
   * thread).
   */
  public static Thread live(String role) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .filter(thread -> thread.getName().endsWith("-" + role))
        .filter(EngineThreads::inEngineGroup)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no live Ratis thread " + role));
  }

  /** Kills {@code thread} with an asynchronous error and waits until it has died. */
  public static void kill(Thread thread) throws Exception {
    try {
      Thread.class.getMethod("stop").invoke(thread);
    } catch (InvocationTargetException e) {
      Assumptions.assumeTrue(
          !(e.getCause() instanceof UnsupportedOperationException),
          "this JDK has no Thread.stop() to kill a Ratis thread with; skipped here");
      throw e;
    }
    thread.join(10_000);
    if (thread.isAlive()) {
      throw new AssertionError(thread + " is still alive after Thread.stop()");
    }
  }

  private static boolean inEngineGroup(Thread thread) {
    for (ThreadGroup group = thread.getThreadGroup(); group != null; group = group.getParent()) {
      if (group.getName().startsWith("sluice-ratis-")) {
        return true;
      }
    }
    return false;
  }
}
