package io.sluice.agent.instrumentation.httpurlconnection;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * The JDK's {@code HttpURLConnection} (http and https), through its implementation class: a call is
 * governed when its response is first asked for ({@code getInputStream}, which {@code
 * getResponseCode} also goes through), which for a request without a body is before anything is
 * sent. Outbound headers are added while the connection is not yet connected.
 */
public final class HttpUrlConnectionInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "java-http-url-connection";
  }

  @Override
  public List<String> typeNames() {
    return List.of("sun.net.www.protocol.http.HttpURLConnection");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of();
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer.advice(
        named("getInputStream").and(takesArguments(0)),
        "io.sluice.agent.instrumentation.httpurlconnection.HttpUrlConnectionAdvice");
  }
}
