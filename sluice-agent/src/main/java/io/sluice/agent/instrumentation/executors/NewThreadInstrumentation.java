package io.sluice.agent.instrumentation.executors;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * {@code new Thread(runnable)}: the thread's task runs with the context of the thread that created
 * it. Opt-in ({@code instrumentation.enabled=java-thread}): a thread outlives the request that
 * created it, and a long-lived thread started during a request (a pool or an event loop started
 * lazily) would carry that request's lane for good; the known pools and event loops are left alone,
 * others may not be. Threads that override {@code run()} instead of taking a task carry nothing.
 */
public final class NewThreadInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "java-thread";
  }

  @Override
  public boolean optIn() {
    return true;
  }

  @Override
  public List<String> typeNames() {
    return List.of("java.lang.Thread");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of();
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    // Every public constructor delegates to one non-public constructor, whose task argument is the
    // second (Java 17) or the fourth (Java 21+).
    return transformer
        .advice(
            isConstructor().and(not(isPublic())).and(takesArgument(1, Runnable.class)),
            "io.sluice.agent.instrumentation.executors.NewThreadAdvice")
        .advice(
            isConstructor().and(not(isPublic())).and(takesArgument(3, Runnable.class)),
            "io.sluice.agent.instrumentation.executors.NewThreadTaskAdvice");
  }
}
