package io.sluice.agent.instrumentation.okhttp4;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * OkHttp 4 (and 5, same class): synchronous calls ({@code Call.execute()}) are governed per {@code
 * METHOD host:port/path}. Asynchronous {@code enqueue} calls and outbound headers are not handled
 * yet (they need an interceptor added to the client).
 */
public final class RealCallInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "okhttp-4.0";
  }

  @Override
  public List<String> typeNames() {
    return List.of("okhttp3.internal.connection.RealCall");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of("okhttp3.Request", "okhttp3.Response", "okhttp3.HttpUrl");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer.advice(
        named("execute").and(takesArguments(0)),
        "io.sluice.agent.instrumentation.okhttp4.RealCallAdvice");
  }
}
