package io.sluice.agent.instrumentation.jdkhttpclient;

import io.sluice.agent.bootstrap.AllHeaders;
import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.OutboundCall;
import io.sluice.agent.bootstrap.SluiceHooks;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import net.bytebuddy.asm.Advice;

/** Woven into {@code HttpClientImpl.send(HttpRequest, BodyHandler)}. */
public final class HttpClientSendAdvice {
  private HttpClientSendAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static Object enter(
      @Advice.Argument(value = 0, readOnly = false) HttpRequest request,
      @Advice.Local("sluiceOuter") boolean outer,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    outer = OutboundCall.begin();
    if (!outer) {
      return null;
    }
    GovernanceHooks hooks = SluiceHooks.get();
    String[] headers = hooks.outboundHeaders();
    if (headers.length > 0) {
      HttpRequest.Builder copy = HttpRequest.newBuilder(request, AllHeaders.INSTANCE);
      for (int i = 0; i + 1 < headers.length; i += 2) {
        copy.setHeader(headers[i], headers[i + 1]);
      }
      request = copy.build();
    }
    Object governed = hooks.outboundResource(request.method(), request.uri(), null);
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
      @Advice.Argument(0) HttpRequest request,
      @Advice.Enter Object refusal,
      @Advice.Argument(1) HttpResponse.BodyHandler<?> handler,
      @Advice.Return(readOnly = false) HttpResponse<?> response,
      @Advice.Thrown(readOnly = false) Throwable thrown,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    OutboundCall.end();
    if (refusal instanceof BlockVerdict) {
      BlockVerdict verdict = (BlockVerdict) refusal;
      if (verdict.respondsOutbound()) {
        try {
          response = (HttpResponse<?>) SluiceHooks.get().jdkHttpResponse(verdict, request, handler);
        } catch (Exception e) {
          thrown = e;
        }
      } else {
        thrown = verdict.toException(request.uri().toString());
      }
      return;
    }
    if (permit > 0) {
      int status = thrown == null && response != null ? response.statusCode() : 0;
      SluiceHooks.get().release(resource, permit, status, thrown);
    }
  }
}
