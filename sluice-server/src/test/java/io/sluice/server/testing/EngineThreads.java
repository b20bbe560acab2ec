package io.sluice.server.testing;

import java.lang.reflect.InvocationTargetException;
import java.util.Comparator;
import org.junit.jupiter.api.Assumptions;

/**
 * The threads of the store's Ratis engine, for tests that kill one as an OutOfMemoryError would:
 * {@code Thread.stop()} throws an asynchronous error into the thread wherever it is; or that hold
 * one as a JVM pause would ({@code Thread.suspend()}). The JDK removed both in Java 20; there the
 * calling test is skipped, saying so.
 */
public final class EngineThreads {
  private EngineThreads() {}

  /**
   * The newest live thread of a store's Ratis engine whose name ends with {@code role}, e.g. {@code
   * LeaderStateImpl} (the leader's event processor) or {@code StateMachineUpdater} (the apply
   * thread). The newest, because a store closed just before can leave its threads running until
   * their next timed wake-up (a standalone leader's: up to 2 s), and killing one of those would not
   * touch the store under test.
   */
  @SuppressWarnings("deprecation") // getId(): threadId() is Java 19+, and this runs on 17
  public static Thread live(String role) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .filter(thread -> thread.getName().endsWith("-" + role))
        .filter(EngineThreads::inEngineGroup)
        .max(Comparator.comparingLong(Thread::getId))
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

  /**
   * Suspends {@code thread} for {@code pause}, as a JVM pause (a long collection, a stopped
   * process) holds every thread; {@code Thread.suspend()}, skipped where the JDK removed it.
   */
  public static void suspendFor(Thread thread, java.time.Duration pause) throws Exception {
    try {
      Thread.class.getMethod("suspend").invoke(thread);
    } catch (InvocationTargetException e) {
      Assumptions.assumeTrue(
          !(e.getCause() instanceof UnsupportedOperationException),
          "this JDK has no Thread.suspend() to pause a thread with; skipped here");
      throw e;
    }
    try {
      Thread.sleep(pause.toMillis());
    } finally {
      Thread.class.getMethod("resume").invoke(thread);
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
