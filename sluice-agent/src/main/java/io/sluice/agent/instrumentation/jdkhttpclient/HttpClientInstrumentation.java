package io.sluice.agent.instrumentation.jdkhttpclient;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * The JDK's {@code java.net.http.HttpClient} (11+), through its one implementation class: {@code
 * send} is governed with the response status known at return; {@code sendAsync} (which {@code send}
 * itself calls, as a nested call) is governed when called directly, and its outcome recorded when
 * the future completes. Outbound headers are added by copying the immutable request.
 */
public final class HttpClientInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "java-http-client";
  }

  @Override
  public List<String> typeNames() {
    return List.of("jdk.internal.net.http.HttpClientImpl");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of();
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer
        .advice(
            named("send")
                .and(takesArguments(2))
                .and(takesArgument(0, named("java.net.http.HttpRequest"))),
            "io.sluice.agent.instrumentation.jdkhttpclient.HttpClientSendAdvice")
        .advice(
            named("sendAsync")
                .and(takesArguments(4))
                .and(takesArgument(0, named("java.net.http.HttpRequest"))),
            "io.sluice.agent.instrumentation.jdkhttpclient.HttpClientSendAsyncAdvice");
  }
}
