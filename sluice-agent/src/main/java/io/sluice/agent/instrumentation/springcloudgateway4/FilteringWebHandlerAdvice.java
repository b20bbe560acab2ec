package io.sluice.agent.instrumentation.springcloudgateway4;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.ReactivePermit;
import io.sluice.agent.bootstrap.SluiceHooks;
import java.util.function.Consumer;
import net.bytebuddy.asm.Advice;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Woven into Spring Cloud Gateway's {@code FilteringWebHandler.handle(exchange)}, which runs a
 * matched route's filters: the route (by id) is governed like any inbound resource. A refused
 * request gets the verdict's status, {@code Retry-After} and JSON body, and its route's filters do
 * not run; an admitted one releases its permit when its pipeline ends, with the response status.
 */
public final class FilteringWebHandlerAdvice {
  /** Spring Cloud Gateway's {@code ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR}. */
  public static final String GATEWAY_ROUTE =
      "org.springframework.cloud.gateway.support.ServerWebExchangeUtils.gatewayRoute";

  private FilteringWebHandlerAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static Object enter(
      @Advice.Argument(0) ServerWebExchange exchange,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    Object route = exchange.getAttribute(GATEWAY_ROUTE);
    if (route == null) {
      return null;
    }
    GovernanceHooks hooks = SluiceHooks.get();
    Object governed = hooks.gatewayResource(route);
    if (governed == null) {
      return null;
    }
    long acquired = hooks.acquire(governed);
    if (acquired < 0) {
      return hooks.refusal(governed, acquired);
    }
    resource = governed;
    permit = acquired;
    return null;
  }

  @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
  @SuppressWarnings({"rawtypes", "unchecked"})
  public static void exit(
      @Advice.Argument(0) ServerWebExchange exchange,
      @Advice.Enter Object refusal,
      @Advice.Return(readOnly = false) Mono<Void> result,
      @Advice.Thrown Throwable thrown,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    if (refusal instanceof BlockVerdict) {
      BlockVerdict verdict = (BlockVerdict) refusal;
      ServerHttpResponse response = exchange.getResponse();
      response.setStatusCode(HttpStatusCode.valueOf(verdict.status()));
      if (verdict.retryAfter() != null) {
        response.getHeaders().set("Retry-After", verdict.retryAfter());
      }
      response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
      result = response.writeWith(Mono.just(response.bufferFactory().wrap(verdict.body())));
      return;
    }
    if (permit > 0) {
      if (thrown != null || result == null) {
        SluiceHooks.get().release(resource, permit, 0, thrown);
      } else {
        result =
            result.doFinally(
                (Consumer) new ReactivePermit(resource, permit, exchange.getResponse()));
      }
    }
  }
}
