package io.sluice.agent.instrumentation.executors;

import io.sluice.agent.bootstrap.TaskContexts;
import net.bytebuddy.asm.Advice;

/**
 * Woven into {@code ForkJoinPool.execute/submit/invoke(ForkJoinTask)}: notes the current context
 * against the task handed over.
 */
public final class SubmitTaskAdvice {
  private SubmitTaskAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void enter(@Advice.Argument(0) Object task) {
    TaskContexts.handOver(task);
  }
}
