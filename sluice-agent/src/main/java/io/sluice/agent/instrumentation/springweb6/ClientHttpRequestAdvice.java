package io.sluice.agent.instrumentation.springweb6;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.OutboundCall;
import io.sluice.agent.bootstrap.SluiceHooks;
import io.sluice.agent.bootstrap.SyntheticResponse;
import net.bytebuddy.asm.Advice;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Woven into {@code AbstractClientHttpRequest.execute()}: the outermost request of a call adds the
 * outbound headers and governs it; a refusal throws {@code SluiceBlockedException} or returns the
 * resource's synthetic fallback response.
 */
public final class ClientHttpRequestAdvice {
  private ClientHttpRequestAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static Object enter(
      @Advice.This ClientHttpRequest request,
      @Advice.Local("sluiceOuter") boolean outer,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    outer = OutboundCall.begin();
    if (!outer) {
      // An intercepting request delegating to the real one: the outer call governs.
      return null;
    }
    GovernanceHooks hooks = SluiceHooks.get();
    String[] headers = hooks.outboundHeaders();
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.getHeaders().set(headers[i], headers[i + 1]);
    }
    Object governed =
        hooks.outboundResource(
            request.getMethod().name(), request.getURI(), OutboundCall.uriTemplate());
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
  public static void exit(
      @Advice.This ClientHttpRequest request,
      @Advice.Enter Object refusal,
      @Advice.Return(readOnly = false) ClientHttpResponse response,
      @Advice.Thrown(readOnly = false) Throwable thrown,
      @Advice.Local("sluiceOuter") boolean outer,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    OutboundCall.end();
    if (refusal instanceof BlockVerdict) {
      BlockVerdict verdict = (BlockVerdict) refusal;
      if (verdict.respondsOutbound()) {
        response =
            (ClientHttpResponse)
                SyntheticResponse.springClientResponse(verdict, ClientHttpResponse.class);
      } else {
        thrown = verdict.toException(request.getURI().toString());
      }
      return;
    }
    if (permit > 0) {
      int status = 0;
      if (thrown == null && response != null) {
        try {
          status = response.getStatusCode().value();
        } catch (java.io.IOException e) {
          status = 0;
        }
      }
      SluiceHooks.get().release(resource, permit, status, thrown);
    }
  }
}
