package io.sluice.agent.instrumentation.apachehttpclient5;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Apache HttpClient 5 classic (blocking) API: every {@code execute} overload of the clients that
 * {@code HttpClients} builds ends in {@code doExecute(target, request, context)}, where the call is
 * governed and the outbound headers are set on the (mutable) request. The async client is not
 * handled yet.
 */
public final class ClassicClientInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "apache-httpclient-5.0";
  }

  @Override
  public List<String> typeNames() {
    return List.of(
        "org.apache.hc.client5.http.impl.classic.InternalHttpClient",
        "org.apache.hc.client5.http.impl.classic.MinimalHttpClient");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of(
        "org.apache.hc.core5.http.ClassicHttpRequest",
        "org.apache.hc.client5.http.impl.classic.CloseableHttpResponse");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer.advice(
        named("doExecute").and(takesArguments(3)),
        "io.sluice.agent.instrumentation.apachehttpclient5.ClassicClientAdvice");
  }
}
