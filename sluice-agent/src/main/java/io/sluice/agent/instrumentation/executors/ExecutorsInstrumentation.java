package io.sluice.agent.instrumentation.executors;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isDeclaredBy;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

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
 * executors they run on. {@code ForkJoinTask}s forked ({@code fork()}) or handed to a pool as tasks
 * cannot be wrapped (the pool queues the task itself): their context is noted against the task and
 * made current by {@code doExec} on whichever thread runs it. Plain {@code new Thread(runnable)} is
 * the opt-in {@code java-thread} instrumentation.
 */
public final class ExecutorsInstrumentation implements SluiceInstrumentation {
  static final String RUNNABLE_ADVICE =
      "io.sluice.agent.instrumentation.executors.WrapRunnableAdvice";
  static final String CALLABLE_ADVICE =
      "io.sluice.agent.instrumentation.executors.WrapCallableAdvice";
  static final String VIRTUAL_THREAD_ADVICE =
      "io.sluice.agent.instrumentation.executors.VirtualThreadAdvice";
  static final String FORK_JOIN_TASK = "java.util.concurrent.ForkJoinTask";

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
        FORK_JOIN_TASK,
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
        // ForkJoinTasks are queued as they are: note their context, restore it where they run.
        .advice(
            isDeclaredBy(named("java.util.concurrent.ForkJoinPool"))
                .and(namedOneOf("execute", "submit", "invoke"))
                .and(takesArguments(1))
                .and(takesArgument(0, named(FORK_JOIN_TASK))),
            "io.sluice.agent.instrumentation.executors.SubmitTaskAdvice")
        .advice(
            isDeclaredBy(named(FORK_JOIN_TASK)).and(named("fork")).and(takesArguments(0)),
            "io.sluice.agent.instrumentation.executors.ForkAdvice")
        .advice(
            isDeclaredBy(named(FORK_JOIN_TASK)).and(named("doExec")).and(takesArguments(0)),
            "io.sluice.agent.instrumentation.executors.RunTaskAdvice")
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
