package io.sluice.agent.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TaskContextsTest {
  @AfterEach
  void clearTheThread() {
    SluiceContext.restore(null);
  }

  @Test
  void givesAHandedOverTaskItsContextOnceAndByIdentity() {
    SluiceContext gray = SluiceContext.of(null, "gray");
    Object task = new Object();
    Object equalButOther =
        new Object() {
          @Override
          public boolean equals(Object other) {
            return true;
          }

          @Override
          public int hashCode() {
            return task.hashCode();
          }
        };
    SluiceContext.replace(gray);
    TaskContexts.handOver(task);
    SluiceContext.restore(null);

    assertThat(TaskContexts.take(equalButOther)).isNull();
    assertThat(TaskContexts.take(task)).isSameAs(gray);
    assertThat(TaskContexts.take(task)).isNull();
  }

  @Test
  void notesNothingWithoutAContext() {
    Object task = new Object();
    TaskContexts.handOver(task);
    assertThat(TaskContexts.take(task)).isNull();
  }

  @Test
  void leavesThreadPoolAndEventLoopTasksOfNewThreadsAlone() {
    SluiceContext.replace(SluiceContext.of(null, "gray"));
    Runnable own = () -> {};
    Runnable poolWorker = new java.util.concurrent.FutureTask<>(() -> null);

    assertThat(ContextRunnable.wrapForNewThread(own)).isInstanceOf(ContextRunnable.class);
    assertThat(ContextRunnable.wrapForNewThread(poolWorker)).isSameAs(poolWorker);
  }
}
