package io.sluice.agent.instrumentation.apachehttpclient4;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Apache HttpClient 4.3+ classic API ({@code HttpClients.createDefault()}, {@code custom()}, {@code
 * createMinimal()}): every {@code execute} overload ends in {@code doExecute(target, request,
 * context)}, where the call is governed and the outbound headers are set.
 */
public final class ClassicClientInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "apache-httpclient-4.3";
  }

  @Override
  public List<String> typeNames() {
    return List.of(
        "org.apache.http.impl.client.InternalHttpClient",
        "org.apache.http.impl.client.MinimalHttpClient");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of(
        "org.apache.http.client.methods.CloseableHttpResponse",
        "org.apache.http.client.methods.HttpUriRequest");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer.advice(
        named("doExecute")
            .and(takesArguments(3))
            .and(takesArgument(1, named("org.apache.http.HttpRequest"))),
        "io.sluice.agent.instrumentation.apachehttpclient4.ClassicClientAdvice");
  }
}
