package io.sluice.agent.instrumentation.springcloudgateway4;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.ReactivePermit;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.bootstrap.SluiceHooks;
import java.time.Duration;
import java.util.function.Consumer;
import net.bytebuddy.asm.Advice;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Woven into Spring Cloud Gateway's {@code FilteringWebHandler.handle(exchange)}, which runs a
 * matched route's filters: the route (by id) is governed like any inbound resource, its rules
 * reading the request's headers, query parameters and cookies where they name one. Never blocks the
 * event loop: a refused request gets the verdict (429/503 JSON or the route's fallback) and its
 * route's filters do not run; a paced one is delayed on a timer ({@code Mono.delay}) before the
 * filters are subscribed; an admitted one releases its permit when its pipeline ends, with the
 * response status.
 *
 * <p>The request the route proxies carries the outbound headers like any client call: this
 * gateway's name as {@code x-sluice-origin} (replacing whatever the client sent, since the gateway
 * is the caller of the service behind it) and the lane in the forms it arrived in. They are written
 * into the request's own headers ({@link GovernanceHooks#writeRequestHeader}), each only if the
 * request does not carry it already: the lane is there since the WebFlux entry, so on Reactor Netty
 * a route adds one header and copies none. Only a request whose headers cannot be written in place
 * is rebuilt (with the exchange around it), once. Written in place, the inbound request itself
 * carries the gateway's origin from here on, as Spring 6.1's own {@code mutate()} would leave it.
 */
public final class FilteringWebHandlerAdvice {
  /** Spring Cloud Gateway's {@code ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR}. */
  public static final String GATEWAY_ROUTE =
      "org.springframework.cloud.gateway.support.ServerWebExchangeUtils.gatewayRoute";

  private FilteringWebHandlerAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static BlockVerdict enter(
      @Advice.Argument(value = 0, readOnly = false) ServerWebExchange exchange,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit,
      @Advice.Local("sluiceWait") long wait) {
    Object route = exchange.getAttribute(GATEWAY_ROUTE);
    if (route == null) {
      return null;
    }
    GovernanceHooks hooks = SluiceHooks.get();
    String[] headers = hooks.outboundHeaders();
    if (headers.length > 0) {
      ServerHttpRequest request = exchange.getRequest();
      ServerHttpRequest.Builder rebuilt = null;
      // Read here, typed: a header carried already (the lane, since the WebFlux entry) costs one
      // lookup and no call into the agent.
      HttpHeaders present = request.getHeaders();
      for (int i = 0; i + 1 < headers.length; i += 2) {
        if (rebuilt != null) {
          rebuilt.header(headers[i], headers[i + 1]);
        } else if (!headers[i + 1].equals(present.getFirst(headers[i]))
            && !hooks.writeRequestHeader(request, headers[i], headers[i + 1])) {
          // From here on into a copy: a write in place would miss the copy mutate() just took.
          rebuilt = request.mutate().header(headers[i], headers[i + 1]);
        }
      }
      if (rebuilt != null) {
        exchange = exchange.mutate().request(rebuilt.build()).build();
      }
    }
    Object governed = hooks.gatewayResource(route);
    if (governed == null) {
      return null;
    }
    SluiceContext.attachInServerScope(hooks.routeContext(governed));
    long acquired =
        hooks.tryAcquire(governed, exchange.getRequest(), GovernanceHooks.REACTIVE_REQUEST);
    if (acquired < 0) {
      return hooks.refusal(governed, acquired);
    }
    resource = governed;
    permit = acquired;
    wait = hooks.waitNanos(governed, acquired);
    return null;
  }

  @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
  @SuppressWarnings({"rawtypes", "unchecked"})
  public static void exit(
      @Advice.Argument(0) ServerWebExchange exchange,
      @Advice.Enter BlockVerdict refusal,
      @Advice.Return(readOnly = false) Mono<Void> result,
      @Advice.Thrown Throwable thrown,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit,
      @Advice.Local("sluiceWait") long wait) {
    if (refusal != null) {
      ServerHttpResponse response = exchange.getResponse();
      response.setStatusCode(HttpStatusCode.valueOf(refusal.status()));
      String[] headers = refusal.headers();
      for (int i = 0; i + 1 < headers.length; i += 2) {
        response.getHeaders().set(headers[i], headers[i + 1]);
      }
      if (refusal.contentType() != null) {
        response.getHeaders().set("Content-Type", refusal.contentType());
      }
      result = response.writeWith(Mono.just(response.bufferFactory().wrap(refusal.body())));
      return;
    }
    if (permit > 0) {
      if (thrown != null || result == null) {
        SluiceHooks.get().release(resource, permit, 0, thrown);
        return;
      }
      if (wait > 0) {
        result = Mono.delay(Duration.ofNanos(wait)).then(result);
      }
      result =
          result.doFinally((Consumer) new ReactivePermit(resource, permit, exchange.getResponse()));
    }
  }
}
