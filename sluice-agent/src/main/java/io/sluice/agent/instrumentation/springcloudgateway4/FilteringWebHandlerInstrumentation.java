package io.sluice.agent.instrumentation.springcloudgateway4;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Spring Cloud Gateway 4.1+ (server-webflux): flow and degrade rules on routes, the resource being
 * the route id (as Sentinel's gateway adapter names it). Refusals answer 429 (limits) or 503 (open
 * breaker), like Spring MVC routes.
 */
public final class FilteringWebHandlerInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "spring-cloud-gateway-4.1";
  }

  @Override
  public List<String> typeNames() {
    return List.of("org.springframework.cloud.gateway.handler.FilteringWebHandler");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of(
        "org.springframework.web.server.ServerWebExchange",
        "org.springframework.http.HttpStatusCode",
        "reactor.core.publisher.Mono");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer.advice(
        named("handle").and(takesArguments(1)),
        "io.sluice.agent.instrumentation.springcloudgateway4.FilteringWebHandlerAdvice");
  }
}
