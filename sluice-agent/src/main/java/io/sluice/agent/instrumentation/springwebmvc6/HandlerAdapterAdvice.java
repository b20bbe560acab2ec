package io.sluice.agent.instrumentation.springwebmvc6;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.SluiceHooks;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import net.bytebuddy.asm.Advice;

/**
 * Woven into {@code AbstractHandlerMethodAdapter.handle(request, response, handler)}: asks the
 * governor about the matched route, writes the refusal and skips the handler when refused, and
 * releases the permit with the outcome (status, exception) when admitted. A route no rule governs
 * costs an attribute read, a map lookup and one field read.
 */
public final class HandlerAdapterAdvice {
  /** Spring's {@code HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE}. */
  public static final String BEST_MATCHING_PATTERN =
      "org.springframework.web.servlet.HandlerMapping.bestMatchingPattern";

  private HandlerAdapterAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static boolean enter(
      @Advice.Argument(0) HttpServletRequest request,
      @Advice.Argument(1) HttpServletResponse response,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    Object route = request.getAttribute(BEST_MATCHING_PATTERN);
    if (!(route instanceof String)) {
      return false;
    }
    GovernanceHooks hooks = SluiceHooks.get();
    Object governed = hooks.inboundResource(request.getMethod(), (String) route);
    if (governed == null) {
      return false;
    }
    long acquired = hooks.acquire(governed);
    if (acquired < 0) {
      BlockVerdict verdict = hooks.refusal(governed, acquired);
      if (verdict != null && !response.isCommitted()) {
        response.setStatus(verdict.status());
        if (verdict.retryAfter() != null) {
          response.setHeader("Retry-After", verdict.retryAfter());
        }
        response.setContentType(verdict.contentType());
        response.setContentLength(verdict.body().length);
        try {
          response.getOutputStream().write(verdict.body());
        } catch (java.io.IOException | IllegalStateException e) {
          // The client went away or the app took the writer; the status is what matters.
        }
      }
      return true;
    }
    resource = governed;
    permit = acquired;
    return false;
  }

  @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
  public static void exit(
      @Advice.Argument(1) HttpServletResponse response,
      @Advice.Thrown Throwable thrown,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    if (permit > 0) {
      SluiceHooks.get().release(resource, permit, response.getStatus(), thrown);
    }
  }
}
