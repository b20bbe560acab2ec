package io.sluice.agent.instrumentation.springwebmvc6;

import io.sluice.agent.bootstrap.AsyncPermit;
import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.SluiceHooks;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Proxy;
import net.bytebuddy.asm.Advice;

/**
 * Woven into {@code AbstractHandlerMethodAdapter.handle(request, response, handler)}: asks the
 * governor about the matched route, writes the refusal and skips the handler when refused, and
 * releases the permit with the outcome (status, exception) when admitted. A route no rule governs
 * costs an attribute read, a map lookup and one field read.
 *
 * <p>Asynchronous requests: when the handler started Servlet async processing, the permit is not
 * released at return but handed to an {@link AsyncPermit} (a request attribute, and an {@code
 * AsyncListener} as a safety net). The container later dispatches the request again (dispatcher
 * type {@code ASYNC}) to write the result; that dispatch is not governed again, it only releases
 * the held permit with the final status. A request is thus counted once and holds its concurrency
 * slot until it really ends.
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
      @Advice.Local("sluicePermit") long permit,
      @Advice.Local("sluiceAsyncPermit") AsyncPermit asyncPermit) {
    if (request.getDispatcherType() == DispatcherType.ASYNC) {
      // Finishing a request admitted on its first dispatch: take over its permit, ask nothing.
      Object held = request.getAttribute(AsyncPermit.ATTRIBUTE);
      if (held instanceof AsyncPermit) {
        request.removeAttribute(AsyncPermit.ATTRIBUTE);
        asyncPermit = (AsyncPermit) held;
      }
      return false;
    }
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
      @Advice.Argument(0) HttpServletRequest request,
      @Advice.Argument(1) HttpServletResponse response,
      @Advice.Thrown Throwable thrown,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit,
      @Advice.Local("sluiceAsyncPermit") AsyncPermit asyncPermit) {
    if (asyncPermit == null && permit <= 0) {
      return;
    }
    if (thrown == null && request.isAsyncStarted()) {
      // The request goes on (again) asynchronously: hold the permit until it ends.
      AsyncPermit held = asyncPermit;
      try {
        if (held == null) {
          held = new AsyncPermit(resource, permit);
          request
              .getAsyncContext()
              .addListener(
                  (AsyncListener)
                      Proxy.newProxyInstance(
                          AsyncListener.class.getClassLoader(),
                          new Class<?>[] {AsyncListener.class},
                          held));
        }
        request.setAttribute(AsyncPermit.ATTRIBUTE, held);
      } catch (RuntimeException e) {
        // Cannot follow the request: release now rather than hold the permit forever.
        if (held != null) {
          held.release(response.getStatus(), e);
        } else {
          SluiceHooks.get().release(resource, permit, response.getStatus(), e);
        }
      }
      return;
    }
    if (asyncPermit != null) {
      asyncPermit.release(response.getStatus(), thrown);
    } else {
      SluiceHooks.get().release(resource, permit, response.getStatus(), thrown);
    }
  }
}
