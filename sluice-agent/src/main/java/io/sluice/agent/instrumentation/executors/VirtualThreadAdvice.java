package io.sluice.agent.instrumentation.executors;

import io.sluice.agent.bootstrap.ContextRunnable;
import net.bytebuddy.asm.Advice;

/**
 * Woven into {@code VirtualThread(Executor scheduler, String name, int characteristics, Runnable
 * task)}: the enter advice runs before the constructor body, where replacing an argument is
 * allowed.
 */
public final class VirtualThreadAdvice {
  private VirtualThreadAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void enter(@Advice.Argument(value = 3, readOnly = false) Runnable task) {
    task = ContextRunnable.wrap(task);
  }
}
