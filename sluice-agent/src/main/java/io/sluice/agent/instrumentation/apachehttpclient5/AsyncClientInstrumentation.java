package io.sluice.agent.instrumentation.apachehttpclient5;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Apache HttpClient 5's async client ({@code HttpAsyncClients.createDefault()}, {@code custom()},
 * HTTP/1.1 and HTTP/2): every {@code execute} reaches {@code executeImmediate} with the request the
 * producer made, where it gets the outbound headers and is governed (see the advice). Not covered:
 * the minimal async clients ({@code createMinimal}), which bypass the exec chain.
 */
public final class AsyncClientInstrumentation implements SluiceInstrumentation {
  static final String CALLBACK = "org.apache.hc.client5.http.async.AsyncExecCallback";

  @Override
  public String name() {
    return "apache-httpclient-5.0-async";
  }

  @Override
  public List<String> typeNames() {
    return List.of("org.apache.hc.client5.http.impl.async.InternalAbstractHttpAsyncClient");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of(CALLBACK, "org.apache.hc.core5.http.HttpRequest");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer
        .advice(
            named("executeImmediate").and(takesArguments(4)).and(takesArgument(3, named(CALLBACK))),
            "io.sluice.agent.instrumentation.apachehttpclient5.AsyncExecuteAdvice")
        .advice(
            named("executeImmediate").and(takesArguments(5)).and(takesArgument(4, named(CALLBACK))),
            "io.sluice.agent.instrumentation.apachehttpclient5.AsyncExecuteWithChainAdvice");
  }
}
