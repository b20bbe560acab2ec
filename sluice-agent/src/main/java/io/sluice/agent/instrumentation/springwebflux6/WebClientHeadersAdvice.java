package io.sluice.agent.instrumentation.springwebflux6;

import io.sluice.agent.bootstrap.SluiceHooks;
import net.bytebuddy.asm.Advice;
import org.springframework.web.reactive.function.client.ClientRequest;

/**
 * Woven into WebClient's {@code ExchangeFunctions.DefaultExchangeFunction.exchange(ClientRequest)},
 * which every WebClient request passes after its filters (a load balancer's among them): the
 * request gets the current context's outbound headers. The request is immutable, so it is copied,
 * only when there are headers to add.
 */
public final class WebClientHeadersAdvice {
  private WebClientHeadersAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void enter(@Advice.Argument(value = 0, readOnly = false) ClientRequest request) {
    String[] headers = SluiceHooks.get().outboundHeaders();
    if (headers.length < 2) {
      return;
    }
    ClientRequest.Builder copy = ClientRequest.from(request);
    for (int i = 0; i + 1 < headers.length; i += 2) {
      copy.header(headers[i], headers[i + 1]);
    }
    request = copy.build();
  }
}
