package io.sluice.agent.instrumentation.springwebflux6;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.ReactivePermit;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.bootstrap.SluiceHooks;
import java.time.Duration;
import java.util.function.Consumer;
import net.bytebuddy.asm.Advice;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.pattern.PathPattern;
import reactor.core.publisher.Mono;

/**
 * Woven into WebFlux's {@code DispatcherHandler.handleRequestWith(exchange, handler)}, where a
 * request matched to a handler (an annotated controller method or a router function) is handled and
 * its result written: the route ({@code METHOD pattern}, from the best-matching pattern) is
 * governed like a Spring MVC route. Never blocks the event loop: a refused request is answered
 * (429/503 JSON or the route's fallback) without running the handler; a paced one is delayed on a
 * timer ({@code Mono.delay}) before its pipeline is subscribed; the permit is released when the
 * pipeline ends. Handlers without a pattern (Spring Cloud Gateway's routes, governed by their own
 * hook) are left alone.
 */
public final class DispatcherHandlerAdvice {
  /** WebFlux's {@code HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE}. */
  public static final String BEST_MATCHING_PATTERN =
      "org.springframework.web.reactive.HandlerMapping.bestMatchingPattern";

  private DispatcherHandlerAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static BlockVerdict enter(
      @Advice.Argument(0) ServerWebExchange exchange,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit,
      @Advice.Local("sluiceWait") long wait) {
    Object pattern = exchange.getAttribute(BEST_MATCHING_PATTERN);
    if (!(pattern instanceof PathPattern)) {
      return null;
    }
    GovernanceHooks hooks = SluiceHooks.get();
    Object governed =
        hooks.inboundResource(
            exchange.getRequest().getMethod().name(),
            ((PathPattern) pattern).getPatternString(),
            GovernanceHooks.REACTIVE_ROUTE);
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
