package io.sluice.agent.instrumentation.springwebmvc6;

import io.sluice.agent.bootstrap.AsyncPermit;
import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.InboundCall;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.bootstrap.SluiceHooks;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Proxy;
import net.bytebuddy.asm.Advice;
import org.springframework.web.method.HandlerMethod;

/**
 * Woven into {@code AbstractHandlerMethodAdapter.handle(request, response, handler)}: asks the
 * governor about the matched route, answers the refusal (the default 429/503 JSON, or the route's
 * fallback) and skips the handler when refused, and releases the permit with the outcome (status,
 * exception) when admitted. While the route is served, its context names it as the entrance of
 * CHAIN rules (when such rules exist). A route no rule governs costs an attribute read, a map
 * lookup and a few field reads.
 *
 * <p>A route whose hot-parameter rules read the handler method's arguments is decided where those
 * are known ({@link InvocableHandlerMethodAdvice}); this advice defers to it and, when that
 * refused, turns its {@link InboundCall#REFUSED} into the answer.
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
      @Advice.Argument(2) Object handler,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit,
      @Advice.Local("sluiceAsyncPermit") AsyncPermit asyncPermit,
      @Advice.Local("sluiceDeferred") boolean deferred,
      @Advice.Local("sluiceRefusal") BlockVerdict refusal,
      @Advice.Local("sluiceRouted") boolean routed,
      @Advice.Local("sluicePrevious") SluiceContext previous) {
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
    Object governed =
        hooks.inboundResource(request.getMethod(), (String) route, GovernanceHooks.SERVLET_ROUTE);
    if (governed == null) {
      return false;
    }
    SluiceContext routeContext = hooks.routeContext(governed);
    if (routeContext != null) {
      previous = SluiceContext.replace(routeContext);
      routed = true;
    }
    resource = governed;
    if (handler instanceof HandlerMethod
        && hooks.needsArguments(governed)
        && InboundCall.defer(governed, ((HandlerMethod) handler).getMethod(), request)) {
      deferred = true;
      return false;
    }
    long acquired = hooks.acquire(governed, null, request, GovernanceHooks.SERVLET_REQUEST);
    if (acquired < 0) {
      refusal = hooks.refusal(governed, acquired);
      return true;
    }
    permit = acquired;
    return false;
  }

  @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
  public static void exit(
      @Advice.Argument(0) HttpServletRequest request,
      @Advice.Argument(1) HttpServletResponse response,
      @Advice.Thrown(readOnly = false) Throwable thrown,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit,
      @Advice.Local("sluiceAsyncPermit") AsyncPermit asyncPermit,
      @Advice.Local("sluiceDeferred") boolean deferred,
      @Advice.Local("sluiceRefusal") BlockVerdict refusal,
      @Advice.Local("sluiceRouted") boolean routed,
      @Advice.Local("sluicePrevious") SluiceContext previous) {
    if (routed) {
      SluiceContext.restore(previous);
    }
    if (deferred) {
      long decided = InboundCall.finish();
      if (decided < 0) {
        refusal = SluiceHooks.get().refusal(resource, decided);
        if (thrown == InboundCall.REFUSED) {
          thrown = null;
        }
      } else {
        permit = decided;
      }
    }
    if (refusal != null) {
      if (!response.isCommitted()) {
        response.setStatus(refusal.status());
        String[] headers = refusal.headers();
        for (int i = 0; i + 1 < headers.length; i += 2) {
          response.setHeader(headers[i], headers[i + 1]);
        }
        if (refusal.contentType() != null) {
          response.setContentType(refusal.contentType());
        }
        response.setContentLength(refusal.body().length);
        try {
          response.getOutputStream().write(refusal.body());
        } catch (java.io.IOException | IllegalStateException e) {
          // The client went away or the app took the writer; the status is what matters.
        }
      }
      return;
    }
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
