package io.sluice.agent.instrumentation.okhttp4;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * OkHttp 4 (and 5, same classes): every call, synchronous ({@code execute()}) or enqueued, is
 * governed per {@code METHOD host:port/path} where both paths meet, in {@code
 * RealCall.getResponseWithInterceptorChain}; the context's outbound headers are added where the
 * request enters the interceptor chain. An enqueued call runs on OkHttp's dispatcher pool, a {@code
 * ThreadPoolExecutor}, which the executor instrumentation already hands the caller's context.
 */
public final class RealCallInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "okhttp-4.0";
  }

  @Override
  public List<String> typeNames() {
    return List.of(
        "okhttp3.internal.connection.RealCall", "okhttp3.internal.http.RealInterceptorChain");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of("okhttp3.Request", "okhttp3.Response", "okhttp3.HttpUrl");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer
        .advice(
            named("getResponseWithInterceptorChain$okhttp").and(takesArguments(0)),
            "io.sluice.agent.instrumentation.okhttp4.RealCallAdvice")
        .advice(
            named("proceed").and(takesArguments(1)),
            "io.sluice.agent.instrumentation.okhttp4.ChainHeadersAdvice");
  }
}
