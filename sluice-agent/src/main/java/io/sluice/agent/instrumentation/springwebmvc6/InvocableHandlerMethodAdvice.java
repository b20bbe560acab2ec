package io.sluice.agent.instrumentation.springwebmvc6;

import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.InboundCall;
import io.sluice.agent.bootstrap.SluiceHooks;
import net.bytebuddy.asm.Advice;
import org.springframework.web.method.support.InvocableHandlerMethod;

/**
 * Woven into {@code InvocableHandlerMethod.doInvoke(Object... args)}, where Spring calls a handler
 * method with its resolved arguments: decides a call {@link HandlerAdapterAdvice} deferred because
 * a hot-parameter rule reads an argument (by {@code paramIdx}, the values as the method receives
 * them), and skips the method when refused, throwing {@link InboundCall#REFUSED} for the route's
 * advice to answer. Other invocations ({@code @ModelAttribute} and {@code @InitBinder} methods, or
 * any call when no rule reads arguments) cost one field read, or a thread-local read and a compare.
 */
public final class InvocableHandlerMethodAdvice {
  private InvocableHandlerMethodAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static boolean enter(
      @Advice.This InvocableHandlerMethod self, @Advice.Argument(0) Object[] args) {
    GovernanceHooks hooks = SluiceHooks.get();
    if (!hooks.readsArguments()) {
      return false;
    }
    InboundCall call = InboundCall.deferredFor(self.getMethod());
    if (call == null) {
      return false;
    }
    long permit =
        hooks.acquire(call.resource(), args, call.request(), GovernanceHooks.SERVLET_REQUEST);
    call.decided(permit);
    return permit < 0;
  }

  @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
  public static void exit(
      @Advice.Enter boolean refused, @Advice.Thrown(readOnly = false) Throwable thrown) {
    if (refused) {
      thrown = InboundCall.REFUSED;
    }
  }
}
