package io.sluice.agent.instrumentation.springweb6;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Spring's synchronous HTTP clients, 6.0+: {@code RestTemplate} and {@code RestClient} both send
 * through {@code AbstractClientHttpRequest.execute()}, whatever library is underneath (JDK client,
 * Apache, Jetty, Reactor Netty, {@code HttpURLConnection}). That is where a call is governed as
 * {@code METHOD host/path} and gets the context's outbound headers; the library underneath sees the
 * call as nested and stays out. {@code RestTemplate.doExecute} also leaves its URI template, so the
 * resource is {@code /orders/{id}} rather than a normalised guess.
 */
public final class ClientHttpRequestInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "spring-web-6.0";
  }

  @Override
  public List<String> typeNames() {
    return List.of(
        "org.springframework.http.client.AbstractClientHttpRequest",
        "org.springframework.web.client.RestTemplate");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of(
        "org.springframework.http.client.ClientHttpRequest",
        "org.springframework.http.HttpStatusCode");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer
        .advice(
            named("execute")
                .and(takesArguments(0))
                .and(
                    net.bytebuddy.matcher.ElementMatchers.isDeclaredBy(
                        named("org.springframework.http.client.AbstractClientHttpRequest"))),
            "io.sluice.agent.instrumentation.springweb6.ClientHttpRequestAdvice")
        .advice(
            named("doExecute")
                .and(takesArguments(5))
                .and(takesArgument(1, String.class))
                .and(
                    net.bytebuddy.matcher.ElementMatchers.isDeclaredBy(
                        named("org.springframework.web.client.RestTemplate"))),
            "io.sluice.agent.instrumentation.springweb6.RestTemplateAdvice");
  }
}
