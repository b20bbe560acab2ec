package io.sluice.agent.instrumentation.servletjakarta;

import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.bootstrap.SluiceHooks;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServletRequest;
import net.bytebuddy.asm.Advice;

/**
 * Woven into {@code HttpServlet.service(ServletRequest, ServletResponse)}: the request's context
 * from its headers (the caller's name from {@code x-sluice-origin} or Sentinel's {@code S-user};
 * the lane); an untagged request gets its lane from the entry rules, if any apply. The previous
 * context comes back when the call returns. A request from a governed application that carries only
 * its name shares one context per caller, so it allocates nothing here.
 */
public final class HttpServletAdvice {
  private HttpServletAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static SluiceContext enter(
      @Advice.Argument(0) ServletRequest request,
      @Advice.Local("sluiceAttached") boolean attached) {
    if (!(request instanceof HttpServletRequest)) {
      return null;
    }
    HttpServletRequest http = (HttpServletRequest) request;
    String origin =
        SluiceContext.originOf(
            http.getHeader(SluiceContext.Headers.ORIGIN),
            http.getHeader(SluiceContext.Headers.SENTINEL_ORIGIN));
    // Null (no allocation) for the common request that carries none of these.
    SluiceContext context =
        SluiceContext.inbound(
            origin,
            http.getHeader(SluiceContext.Headers.LANE),
            http.getHeader(SluiceContext.Headers.MSE_LANE),
            http.getHeader(SluiceContext.Headers.BAGGAGE));
    if (context == null || context.lane() == null) {
      String entered = SluiceHooks.get().entryLane(http, GovernanceHooks.SERVLET_REQUEST);
      if (entered != null) {
        context = SluiceContext.of(origin, entered);
      }
    }
    if (context == null) {
      return null;
    }
    attached = true;
    return SluiceContext.replace(context);
  }

  @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
  public static void exit(
      @Advice.Enter SluiceContext previous, @Advice.Local("sluiceAttached") boolean attached) {
    if (attached) {
      SluiceContext.restore(previous);
    }
  }
}
