package io.sluice.agent.instrumentation.servletjakarta;

import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.bootstrap.SluiceHooks;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServletRequest;
import net.bytebuddy.asm.Advice;

/**
 * Woven into {@code HttpServlet.service(ServletRequest, ServletResponse)}: the request's context
 * from its headers; an untagged request gets its lane from the entry rules, if any apply.
 */
public final class HttpServletAdvice {
  private HttpServletAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static SluiceContext.Scope enter(@Advice.Argument(0) ServletRequest request) {
    if (!(request instanceof HttpServletRequest)) {
      return null;
    }
    HttpServletRequest http = (HttpServletRequest) request;
    String origin = http.getHeader(SluiceContext.Headers.ORIGIN);
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
    return SluiceContext.attach(context);
  }

  @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
  public static void exit(@Advice.Enter SluiceContext.Scope scope) {
    if (scope != null) {
      scope.close();
    }
  }
}
