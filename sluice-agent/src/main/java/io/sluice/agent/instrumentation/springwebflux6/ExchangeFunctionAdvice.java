package io.sluice.agent.instrumentation.springwebflux6;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.ReactivePermit;
import io.sluice.agent.bootstrap.SluiceHooks;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;
import net.bytebuddy.asm.Advice;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import reactor.core.publisher.Mono;

/**
 * Woven into WebClient's {@code ExchangeFunctions.DefaultExchangeFunction.exchange(ClientRequest)},
 * which every WebClient request passes after its filters (a load balancer's among them), when the
 * exchange is subscribed: the request gets the current context's outbound headers (the lane, this
 * application's name) and is governed as a client call, named by the logical service when a load
 * balancer chose the instance. Never blocks: a refused call fails with {@code
 * SluiceBlockedException} (or completes with the resource's synthetic fallback response), a paced
 * one is delayed on a timer, an admitted one releases its permit when the exchange ends, with the
 * response's status. The request is immutable, so it is copied only when there are headers to add.
 */
public final class ExchangeFunctionAdvice {
  /** WebClient's {@code URI_TEMPLATE_ATTRIBUTE}. */
  public static final String URI_TEMPLATE =
      "org.springframework.web.reactive.function.client.WebClient.uriTemplate";

  private ExchangeFunctionAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static BlockVerdict enter(
      @Advice.Argument(value = 0, readOnly = false) ClientRequest request,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit,
      @Advice.Local("sluiceWait") long wait) {
    GovernanceHooks hooks = SluiceHooks.get();
    String[] headers = hooks.outboundHeaders();
    if (headers.length >= 2) {
      ClientRequest.Builder copy = ClientRequest.from(request);
      for (int i = 0; i + 1 < headers.length; i += 2) {
        copy.header(headers[i], headers[i + 1]);
      }
      request = copy.build();
    }
    if (!hooks.governsOutbound()) {
      return null;
    }
    Object template = request.attributes().get(URI_TEMPLATE);
    Object governed =
        hooks.outboundResource(
            request.method().name(),
            request.url(),
            template instanceof String ? (String) template : null,
            GovernanceHooks.REACTIVE_CLIENT);
    if (governed == null) {
      return null;
    }
    long acquired = hooks.tryAcquire(governed, null, GovernanceHooks.REACTIVE_REQUEST);
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
      @Advice.Argument(0) ClientRequest request,
      @Advice.Enter BlockVerdict refusal,
      @Advice.Return(readOnly = false) Mono<ClientResponse> result,
      @Advice.Thrown Throwable thrown,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit,
      @Advice.Local("sluiceWait") long wait) {
    if (refusal != null) {
      if (refusal.respondsOutbound()) {
        ClientResponse.Builder response =
            ClientResponse.create(HttpStatusCode.valueOf(refusal.status()));
        String[] headers = refusal.headers();
        for (int i = 0; i + 1 < headers.length; i += 2) {
          response.header(headers[i], headers[i + 1]);
        }
        if (refusal.contentType() != null) {
          response.header("Content-Type", refusal.contentType());
        }
        result =
            Mono.just(response.body(new String(refusal.body(), StandardCharsets.UTF_8)).build());
      } else {
        result = Mono.error(refusal.toException(request.url().toString()));
      }
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
      ReactivePermit releaser = new ReactivePermit(resource, permit, null);
      result = result.doOnSuccess((Consumer) releaser).doFinally((Consumer) releaser);
    }
  }
}
