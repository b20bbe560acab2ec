package io.sluice.agent.instrumentation.executors;

import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.bootstrap.TaskContexts;
import net.bytebuddy.asm.Advice;

/**
 * Woven into {@code ForkJoinTask.doExec()}, where a worker (or a joining thread) runs a task: the
 * context noted when the task was forked or submitted is current while it runs, then the thread's
 * own comes back. With nothing pending, one counter read.
 */
public final class RunTaskAdvice {
  private RunTaskAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static SluiceContext enter(
      @Advice.This Object task, @Advice.Local("sluiceAttached") boolean attached) {
    SluiceContext context = TaskContexts.take(task);
    if (context == null) {
      return null;
    }
    attached = true;
    return SluiceContext.replace(context);
  }

  @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
  public static void exit(
      @Advice.Enter SluiceContext previous, @Advice.Local("sluiceAttached") boolean attached) {
    if (attached) {
      SluiceContext.restore(previous);
    }
  }
}
