package io.sluice.agent.instrumentation.springwebmvc6;

import static net.bytebuddy.matcher.ElementMatchers.isDeclaredBy;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Spring MVC 6.0+ on Jakarta Servlet (Spring Boot 3 and 4): each request that Spring MVC matched to
 * a handler method is governed as the resource {@code METHOD pattern}, where the pattern is
 * Spring's best-matching route ({@code GET /orders/{id}}), so path variables never multiply
 * resources. Requests Spring MVC did not match to a handler method (static resources, 404s,
 * functional routes) are not governed: they cannot create resources.
 *
 * <p>The hook is {@code AbstractHandlerMethodAdapter.handle}: by then the handler mapping has set
 * the pattern attribute and the interceptors have run; refusing here skips the handler only. Routes
 * whose hot-parameter rules read the handler's arguments are decided in {@code
 * InvocableHandlerMethod.doInvoke}, once Spring has resolved them.
 */
public final class HandlerAdapterInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "spring-webmvc-6.0";
  }

  @Override
  public List<String> typeNames() {
    return List.of(
        "org.springframework.web.servlet.mvc.method.AbstractHandlerMethodAdapter",
        "org.springframework.web.method.support.InvocableHandlerMethod");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of(
        "org.springframework.web.servlet.HandlerMapping",
        "org.springframework.web.method.HandlerMethod",
        "jakarta.servlet.http.HttpServletResponse",
        // Added in spring-web 6.0: tells Spring 6+ (Jakarta) from 5.x (javax), which is skipped.
        "org.springframework.web.ErrorResponse");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer
        .advice(
            isDeclaredBy(
                    named(
                        "org.springframework.web.servlet.mvc.method.AbstractHandlerMethodAdapter"))
                .and(named("handle"))
                .and(takesArguments(3)),
            "io.sluice.agent.instrumentation.springwebmvc6.HandlerAdapterAdvice")
        .advice(
            isDeclaredBy(named("org.springframework.web.method.support.InvocableHandlerMethod"))
                .and(named("doInvoke"))
                .and(takesArguments(1)),
            "io.sluice.agent.instrumentation.springwebmvc6.InvocableHandlerMethodAdvice");
  }
}
