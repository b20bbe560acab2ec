package io.sluice.agent.instrumentation.executors;

import io.sluice.agent.bootstrap.ContextRunnable;
import net.bytebuddy.asm.Advice;

/**
 * Woven into the constructor every {@code new Thread(...)} ends in (Java 21+: the task is argument
 * 3): the thread's task runs with its creator's context (see {@link
 * ContextRunnable#wrapForNewThread}).
 */
public final class NewThreadTaskAdvice {
  private NewThreadTaskAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void enter(@Advice.Argument(value = 3, readOnly = false) Runnable task) {
    task = ContextRunnable.wrapForNewThread(task);
  }
}
