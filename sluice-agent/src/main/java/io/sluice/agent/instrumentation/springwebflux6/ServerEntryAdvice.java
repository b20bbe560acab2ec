package io.sluice.agent.instrumentation.springwebflux6;

import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.bootstrap.SluiceHooks;
import net.bytebuddy.asm.Advice;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * Woven into {@code HttpWebHandlerAdapter.handle(ServerHttpRequest, ServerHttpResponse)}, where a
 * WebFlux server (a Spring Cloud Gateway) starts handling a request: reads the request's context
 * (the caller's name from {@code x-sluice-origin} or Sentinel's {@code S-user}, the lane), tags an
 * untagged request by the entry rules, and when the request does not yet carry {@code
 * x-sluice-lane} adds it to the request itself, so everything downstream (a gateway's route
 * predicates and proxied call, work that continues off this thread) sees the lane. The header is
 * written into the request's own headers where they can be ({@link
 * GovernanceHooks#writeRequestHeader}: Reactor Netty's, so nothing is copied); only a request whose
 * headers cannot be written is rebuilt. The context is made current only inside the server scope
 * the Reactor Netty hook opened for this request, which ends when the request's pipeline has been
 * subscribed: nothing is left on the shared event loop.
 */
public final class ServerEntryAdvice {
  private ServerEntryAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void enter(
      @Advice.Argument(value = 0, readOnly = false) ServerHttpRequest request) {
    HttpHeaders headers = request.getHeaders();
    String origin =
        SluiceContext.originOf(
            headers.getFirst(SluiceContext.Headers.ORIGIN),
            headers.getFirst(SluiceContext.Headers.SENTINEL_ORIGIN));
    String sluiceLane = headers.getFirst(SluiceContext.Headers.LANE);
    SluiceContext context =
        SluiceContext.inbound(
            origin,
            sluiceLane,
            headers.getFirst(SluiceContext.Headers.MSE_LANE),
            headers.getFirst(SluiceContext.Headers.BAGGAGE));
    GovernanceHooks hooks = SluiceHooks.get();
    if (context == null || context.lane() == null) {
      String entered = hooks.entryLane(request, GovernanceHooks.REACTIVE_REQUEST);
      if (entered != null) {
        context = SluiceContext.of(origin, entered);
      }
    }
    if (context == null) {
      return;
    }
    String lane = context.lane();
    if (sluiceLane == null
        && lane != null
        && !hooks.writeRequestHeader(request, SluiceContext.Headers.LANE, lane)) {
      request = request.mutate().header(SluiceContext.Headers.LANE, lane).build();
    }
    SluiceContext.attachInServerScope(context);
  }
}
