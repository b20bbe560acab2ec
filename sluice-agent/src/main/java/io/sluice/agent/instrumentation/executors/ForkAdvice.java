package io.sluice.agent.instrumentation.executors;

import io.sluice.agent.bootstrap.TaskContexts;
import net.bytebuddy.asm.Advice;

/** Woven into {@code ForkJoinTask.fork()}: notes the current context against the task. */
public final class ForkAdvice {
  private ForkAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void enter(@Advice.This Object task) {
    TaskContexts.handOver(task);
  }
}
