package io.sluice.agent.instrumentation.executors;

import io.sluice.agent.bootstrap.ContextRunnable;
import net.bytebuddy.asm.Advice;

/**
 * Woven into the constructor every {@code new Thread(...)} ends in (Java 17: the task is argument
 * 1): the thread's task runs with its creator's context (see {@link
 * ContextRunnable#wrapForNewThread}).
 */
public final class NewThreadAdvice {
  private NewThreadAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void enter(@Advice.Argument(value = 1, readOnly = false) Runnable task) {
    task = ContextRunnable.wrapForNewThread(task);
  }
}
