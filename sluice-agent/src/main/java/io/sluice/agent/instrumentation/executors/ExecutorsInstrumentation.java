package io.sluice.agent.instrumentation.executors;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isDeclaredBy;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import java.util.concurrent.Callable;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * The JDK's executors: a task handed to {@code ThreadPoolExecutor}, {@code
 * ScheduledThreadPoolExecutor}, {@code ForkJoinPool}, {@code CompletableFuture}'s own
 * thread-per-task executor (used when the common pool has a single thread, as on two cores) or a
 * new virtual thread (Java 21+) runs with the governance context of the thread that handed it over.
 * Tasks are wrapped at hand-over only when there is a context; otherwise the advice is one
 * thread-local read.
 *
 * <p>{@code CompletableFuture}'s async stages and Spring's {@code @Async} are covered through the
 * executors they run on. Not covered: {@code ForkJoinTask}s forked or submitted as tasks (they
 * cannot be wrapped) and plain {@code new Thread(runnable)}.
 */
public final class ExecutorsInstrumentation implements SluiceInstrumentation {
  static final String RUNNABLE_ADVICE =
      "io.sluice.agent.instrumentation.executors.WrapRunnableAdvice";
  static final String CALLABLE_ADVICE =
      "io.sluice.agent.instrumentation.executors.WrapCallableAdvice";
  static final String VIRTUAL_THREAD_ADVICE =
      "io.sluice.agent.instrumentation.executors.VirtualThreadAdvice";

  @Override
  public String name() {
    return "java-executors";
  }

  @Override
  public List<String> typeNames() {
    return List.of(
        "java.util.concurrent.ThreadPoolExecutor",
        "java.util.concurrent.ScheduledThreadPoolExecutor",
        "java.util.concurrent.ForkJoinPool",
        "java.util.concurrent.CompletableFuture$ThreadPerTaskExecutor",
        "java.lang.VirtualThread");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of();
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer
        // ThreadPoolExecutor: every submit ends in execute.
        .advice(
            isDeclaredBy(named("java.util.concurrent.ThreadPoolExecutor"))
                .and(named("execute"))
                .and(takesArgument(0, Runnable.class)),
            RUNNABLE_ADVICE)
        // ScheduledThreadPoolExecutor: execute and submit end in schedule, which skips execute.
        .advice(
            isDeclaredBy(named("java.util.concurrent.ScheduledThreadPoolExecutor"))
                .and(namedOneOf("schedule", "scheduleAtFixedRate", "scheduleWithFixedDelay"))
                .and(takesArgument(0, Runnable.class)),
            RUNNABLE_ADVICE)
        .advice(
            isDeclaredBy(named("java.util.concurrent.ScheduledThreadPoolExecutor"))
                .and(named("schedule"))
                .and(takesArgument(0, Callable.class)),
            CALLABLE_ADVICE)
        .advice(
            isDeclaredBy(named("java.util.concurrent.ForkJoinPool"))
                .and(namedOneOf("execute", "submit"))
                .and(takesArgument(0, Runnable.class)),
            RUNNABLE_ADVICE)
        .advice(
            isDeclaredBy(named("java.util.concurrent.ForkJoinPool"))
                .and(named("submit"))
                .and(takesArgument(0, Callable.class)),
            CALLABLE_ADVICE)
        .advice(
            isDeclaredBy(named("java.util.concurrent.CompletableFuture$ThreadPerTaskExecutor"))
                .and(named("execute"))
                .and(takesArgument(0, Runnable.class)),
            RUNNABLE_ADVICE)
        // Every virtual thread is constructed with its task; wrap it there (Java 21+).
        .advice(
            isDeclaredBy(named("java.lang.VirtualThread"))
                .and(isConstructor())
                .and(takesArgument(3, Runnable.class)),
            VIRTUAL_THREAD_ADVICE);
  }
}
