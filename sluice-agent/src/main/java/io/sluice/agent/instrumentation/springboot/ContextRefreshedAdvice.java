package io.sluice.agent.instrumentation.springboot;

import io.sluice.agent.bootstrap.SluiceHooks;
import net.bytebuddy.asm.Advice;
import org.springframework.context.ConfigurableApplicationContext;

/** Woven into {@code AbstractApplicationContext.finishRefresh()}. */
public final class ContextRefreshedAdvice {
  private ContextRefreshedAdvice() {}

  @Advice.OnMethodExit(suppress = Throwable.class)
  public static void exit(@Advice.This ConfigurableApplicationContext context) {
    SluiceHooks.get()
        .springEnvironmentPrepared(context.getEnvironment().getProperty("spring.application.name"));
  }
}
