package io.sluice.agent.instrumentation.springwebflux6;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Spring WebFlux 6.0+: as a server (Spring Cloud Gateway, or any WebFlux application), the entry of
 * a request, where its context is read and an untagged request's lane decided by the entry rules
 * and written onto the request, and the handling of a matched route ({@code METHOD pattern}),
 * governed without blocking; as a client, WebClient's exchange, where requests get the outbound
 * headers and client-side rules.
 */
public final class ServerEntryInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "spring-webflux-6.0";
  }

  @Override
  public List<String> typeNames() {
    return List.of(
        "org.springframework.web.server.adapter.HttpWebHandlerAdapter",
        "org.springframework.web.reactive.DispatcherHandler",
        "org.springframework.web.reactive.function.client.ExchangeFunctions$DefaultExchangeFunction");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of(
        "org.springframework.http.server.reactive.ServerHttpRequest",
        // Added in spring-web 6.0: tells Spring 6+ from 5.x, which is skipped.
        "org.springframework.http.HttpStatusCode");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer
        .advice(
            named("handle")
                .and(takesArguments(2))
                .and(
                    takesArgument(
                        0, named("org.springframework.http.server.reactive.ServerHttpRequest"))),
            "io.sluice.agent.instrumentation.springwebflux6.ServerEntryAdvice")
        .advice(
            named("exchange")
                .and(takesArguments(1))
                .and(
                    takesArgument(
                        0,
                        named("org.springframework.web.reactive.function.client.ClientRequest"))),
            "io.sluice.agent.instrumentation.springwebflux6.ExchangeFunctionAdvice")
        .advice(
            named("handleRequestWith")
                .and(takesArguments(2))
                .and(takesArgument(0, named("org.springframework.web.server.ServerWebExchange"))),
            "io.sluice.agent.instrumentation.springwebflux6.DispatcherHandlerAdvice");
  }
}
