package io.sluice.agent.instrumentation.executors;

import io.sluice.agent.bootstrap.ContextRunnable;
import net.bytebuddy.asm.Advice;

/** Replaces a submitted {@code Runnable} by one that carries the current context, if any. */
public final class WrapRunnableAdvice {
  private WrapRunnableAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void enter(@Advice.Argument(value = 0, readOnly = false) Runnable task) {
    task = ContextRunnable.wrap(task);
  }
}
