package io.sluice.agent.instrumentation.servletjakarta;

import io.sluice.agent.bootstrap.SluiceContext;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServletRequest;
import net.bytebuddy.asm.Advice;

/** Woven into {@code HttpServlet.service(ServletRequest, ServletResponse)}. */
public final class HttpServletAdvice {
  private HttpServletAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static SluiceContext.Scope enter(@Advice.Argument(0) ServletRequest request) {
    if (!(request instanceof HttpServletRequest)) {
      return null;
    }
    HttpServletRequest http = (HttpServletRequest) request;
    String lane = http.getHeader(SluiceContext.Headers.LANE);
    if (lane == null) {
      lane = http.getHeader(SluiceContext.Headers.MSE_LANE);
    }
    String origin = http.getHeader(SluiceContext.Headers.ORIGIN);
    // Null (no allocation) for the common request that carries neither.
    return SluiceContext.attach(SluiceContext.of(origin, lane));
  }

  @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
  public static void exit(@Advice.Enter SluiceContext.Scope scope) {
    if (scope != null) {
      scope.close();
    }
  }
}
