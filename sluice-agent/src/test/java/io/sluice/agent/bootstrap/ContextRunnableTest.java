package io.sluice.agent.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The propagation logic the executor advice applies, exercised directly on a real pool (the advice
 * itself is exercised by the end-to-end tests, inside the JDK classes).
 */
class ContextRunnableTest {
  private final ExecutorService pool = Executors.newSingleThreadExecutor();

  @AfterEach
  void shutDown() {
    pool.shutdownNow();
  }

  @Test
  void returnsTheTaskItselfWhenThereIsNothingToPropagate() throws Exception {
    Runnable task = () -> {};
    Callable<String> callable = () -> "x";

    assertThat(ContextRunnable.wrap(task)).isSameAs(task);
    assertThat(ContextRunnable.wrap(callable)).isSameAs(callable);
  }

  @Test
  void runsTheTaskInTheSubmittersContextAndNotTheNextOne() throws Exception {
    AtomicReference<String> seen = new AtomicReference<>();
    try (SluiceContext.Scope ignored = SluiceContext.attach(SluiceContext.of(null, "blue"))) {
      pool.submit(ContextRunnable.wrap((Runnable) () -> seen.set(lane()))).get(5, TimeUnit.SECONDS);
    }
    assertThat(seen.get()).isEqualTo("blue");
    assertThat(SluiceContext.current()).isNull();

    // The same pooled thread, a task handed over without a context: nothing leaks into it.
    pool.submit(ContextRunnable.wrap((Runnable) () -> seen.set(lane()))).get(5, TimeUnit.SECONDS);
    assertThat(seen.get()).isEqualTo("none");
  }

  @Test
  void restoresTheWorkersOwnContextAfterTheTask() throws Exception {
    Runnable wrapped;
    try (SluiceContext.Scope ignored = SluiceContext.attach(SluiceContext.of("caller", "blue"))) {
      Runnable check = () -> assertThat(lane()).isEqualTo("blue");
      wrapped = ContextRunnable.wrap(check);
    }
    try (SluiceContext.Scope ignored = SluiceContext.attach(SluiceContext.of(null, "green"))) {
      wrapped.run(); // e.g. CallerRunsPolicy: the submitting pool thread runs it
      assertThat(lane()).isEqualTo("green");
    }
  }

  @Test
  void aWrappedFutureTaskIsStillAFuture() throws Exception {
    FutureTask<String> future = new FutureTask<>(ContextRunnableTest::lane);
    Runnable wrapped;
    try (SluiceContext.Scope ignored = SluiceContext.attach(SluiceContext.of(null, "blue"))) {
      wrapped = ContextRunnable.wrap(future);
    }
    assertThat(wrapped).isInstanceOf(RunnableFuture.class);
    pool.execute(wrapped);
    assertThat(((RunnableFuture<?>) wrapped).get(5, TimeUnit.SECONDS)).isEqualTo("blue");
  }

  @Test
  void wrapsOnlyOnce() {
    try (SluiceContext.Scope ignored = SluiceContext.attach(SluiceContext.of(null, "blue"))) {
      Runnable once = ContextRunnable.wrap((Runnable) () -> {});
      assertThat(ContextRunnable.wrap(once)).isSameAs(once);
    }
  }

  @Test
  void aContextWithNeitherOriginNorLaneIsNoContext() {
    assertThat(SluiceContext.of(null, "")).isNull();
    assertThat(SluiceContext.attach(null)).isNull();
  }

  @Test
  void outboundHeadersCarryTheLane() {
    assertThat(SluiceContext.of(null, "blue").outboundHeaders())
        .containsExactly(SluiceContext.Headers.LANE, "blue");
    assertThat(SluiceContext.of("caller", null).outboundHeaders()).isEmpty();
    assertThat(GovernanceHooks.NOOP.outboundHeaders()).isEmpty();
  }

  private static String lane() {
    SluiceContext context = SluiceContext.current();
    return context == null || context.lane() == null ? "none" : context.lane();
  }
}
