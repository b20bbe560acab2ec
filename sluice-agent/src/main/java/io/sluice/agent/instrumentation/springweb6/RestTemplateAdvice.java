package io.sluice.agent.instrumentation.springweb6;

import io.sluice.agent.bootstrap.OutboundCall;
import net.bytebuddy.asm.Advice;

/**
 * Woven into {@code RestTemplate.doExecute(URI, String uriTemplate, ...)}: leaves the template for
 * the request that governs the call, and takes it back afterwards.
 */
public final class RestTemplateAdvice {
  private RestTemplateAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void enter(@Advice.Argument(1) String uriTemplate) {
    OutboundCall.setUriTemplate(uriTemplate);
  }

  @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
  public static void exit() {
    OutboundCall.setUriTemplate(null);
  }
}
