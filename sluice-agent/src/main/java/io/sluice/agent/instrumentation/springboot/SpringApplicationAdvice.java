package io.sluice.agent.instrumentation.springboot;

import io.sluice.agent.bootstrap.SluiceHooks;
import net.bytebuddy.asm.Advice;
import org.springframework.core.env.ConfigurableEnvironment;

/** Woven into {@code SpringApplication.prepareEnvironment(...)}. */
public final class SpringApplicationAdvice {
  private SpringApplicationAdvice() {}

  @Advice.OnMethodExit(suppress = Throwable.class)
  public static void exit(@Advice.Return ConfigurableEnvironment environment) {
    if (environment != null) {
      SluiceHooks.get()
          .springEnvironmentPrepared(environment.getProperty("spring.application.name"));
    }
  }
}
