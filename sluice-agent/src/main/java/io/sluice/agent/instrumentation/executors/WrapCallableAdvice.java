package io.sluice.agent.instrumentation.executors;

import io.sluice.agent.bootstrap.ContextRunnable;
import java.util.concurrent.Callable;
import net.bytebuddy.asm.Advice;

/** Replaces a submitted {@code Callable} by one that carries the current context, if any. */
public final class WrapCallableAdvice {
  private WrapCallableAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void enter(@Advice.Argument(value = 0, readOnly = false) Callable<?> task) {
    task = ContextRunnable.wrap(task);
  }
}
