package io.sluice.agent.instrumentation.springboot;

import static net.bytebuddy.matcher.ElementMatchers.isDeclaredBy;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Spring Boot 2.0+: learns {@code spring.application.name} from the application's Environment as
 * soon as Spring Boot has prepared it (every property source, profile and config file applied, and
 * well before the web server serves a request), so the agent needs no name of its own for a Spring
 * application.
 */
public final class SpringApplicationInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "spring-boot-2.0";
  }

  @Override
  public List<String> typeNames() {
    return List.of(
        "org.springframework.boot.SpringApplication",
        "org.springframework.context.support.AbstractApplicationContext");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of("org.springframework.core.env.ConfigurableEnvironment");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer
        .advice(
            isDeclaredBy(named("org.springframework.boot.SpringApplication"))
                .and(named("prepareEnvironment"))
                .and(returns(named("org.springframework.core.env.ConfigurableEnvironment"))),
            "io.sluice.agent.instrumentation.springboot.SpringApplicationAdvice")
        // A second chance, at the end of each context refresh: the weaving runs beside the
        // application's start and may be installed after the environment was prepared.
        .advice(
            isDeclaredBy(named("org.springframework.context.support.AbstractApplicationContext"))
                .and(named("finishRefresh"))
                .and(takesArguments(0)),
            "io.sluice.agent.instrumentation.springboot.ContextRefreshedAdvice");
  }
}
