package io.sluice.agent.instrumentation.jdkhttpclient;

import io.sluice.agent.bootstrap.AllHeaders;
import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.OutboundCall;
import io.sluice.agent.bootstrap.OutboundCompletion;
import io.sluice.agent.bootstrap.SluiceHooks;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import net.bytebuddy.asm.Advice;

/**
 * Woven into the private {@code HttpClientImpl.sendAsync(request, handler, pushHandler, executor)}
 * that every public send method ends in. Calls nested in {@code send} are left to it.
 */
public final class HttpClientSendAsyncAdvice {
  private HttpClientSendAsyncAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static Object enter(
      @Advice.Argument(value = 0, readOnly = false) HttpRequest request,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    if (OutboundCall.isNested()) {
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
      @Advice.Argument(1) HttpResponse.BodyHandler<?> handler,
      @Advice.Enter Object refusal,
      @Advice.Return(readOnly = false) CompletableFuture<?> result,
      @Advice.Thrown Throwable thrown,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    if (refusal instanceof BlockVerdict) {
      BlockVerdict verdict = (BlockVerdict) refusal;
      if (verdict.respondsOutbound()) {
        try {
          result =
              CompletableFuture.completedFuture(
                  SluiceHooks.get().jdkHttpResponse(verdict, request, handler));
        } catch (Exception e) {
          result = CompletableFuture.failedFuture(e);
        }
      } else {
        result = CompletableFuture.failedFuture(verdict.toException(request.uri().toString()));
      }
      return;
    }
    if (permit > 0) {
      if (thrown != null || result == null) {
        SluiceHooks.get().release(resource, permit, 0, thrown);
      } else {
        result.whenComplete(new OutboundCompletion(resource, permit));
      }
    }
  }
}
