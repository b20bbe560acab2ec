package io.sluice.agent.instrumentation.reactornetty1;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Reactor Netty 1.1+ HTTP server (Spring Boot's WebFlux server, Spring Cloud Gateway): the scope in
 * which a request's lane is current on the event loop. See {@link ServerScopeAdvice}.
 */
public final class HttpServerInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "reactor-netty-1.1";
  }

  @Override
  public List<String> typeNames() {
    return List.of("reactor.netty.http.server.HttpServer$HttpServerHandle");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of("reactor.netty.ConnectionObserver");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer.advice(
        named("onStateChange").and(takesArguments(2)),
        "io.sluice.agent.instrumentation.reactornetty1.ServerScopeAdvice");
  }
}
