package io.sluice.agent.instrumentation.servletjakarta;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Jakarta Servlet (5.0+, so Tomcat 10.1+, Jetty 12, Undertow 2.3+): every request through an {@code
 * HttpServlet} runs with the governance context its headers carry (lane tag, origin), and the
 * context is removed when the request's servlet call returns, so a pooled container thread never
 * carries it into the next request.
 */
public final class HttpServletInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "servlet-jakarta-5.0";
  }

  @Override
  public List<String> typeNames() {
    return List.of("jakarta.servlet.http.HttpServlet");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of("jakarta.servlet.http.HttpServletRequest", "jakarta.servlet.ServletResponse");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer.advice(
        named("service")
            .and(takesArguments(2))
            .and(takesArgument(0, named("jakarta.servlet.ServletRequest"))),
        "io.sluice.agent.instrumentation.servletjakarta.HttpServletAdvice");
  }
}
