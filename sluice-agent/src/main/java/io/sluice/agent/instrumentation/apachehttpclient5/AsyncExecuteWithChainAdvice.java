package io.sluice.agent.instrumentation.apachehttpclient5;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.CallbackPermit;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.OutboundCall;
import io.sluice.agent.bootstrap.SluiceHooks;
import java.lang.reflect.Proxy;
import net.bytebuddy.asm.Advice;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.core5.http.HttpRequest;

/**
 * Woven into the async client's {@code InternalAbstractHttpAsyncClient.executeImmediate(request,
 * ..., callback)} (HttpClient 5.4+, with the exec chain: five arguments), where a request starts
 * through the exec chain on the thread that called {@code execute}: the (mutable) request gets the
 * outbound headers and the call is governed; a refusal fails the exchange's callback with {@code
 * SluiceBlockedException} (so the future and the application's callback fail with it) and the
 * request is never sent; an admitted call's permit is released when the exchange completes or
 * fails, through a {@link CallbackPermit} put in front of the callback. A paced call waits on the
 * calling thread.
 */
public final class AsyncExecuteWithChainAdvice {
  private AsyncExecuteWithChainAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static boolean enter(
      @Advice.Argument(0) HttpRequest request,
      @Advice.Argument(value = 4, readOnly = false) AsyncExecCallback callback)
      throws java.net.URISyntaxException {
    if (OutboundCall.isNested()) {
      return false;
    }
    GovernanceHooks hooks = SluiceHooks.get();
    String[] headers = hooks.outboundHeaders();
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.setHeader(headers[i], headers[i + 1]);
    }
    if (!hooks.governsOutbound()) {
      return false;
    }
    Object governed = hooks.outboundResource(request.getMethod(), request.getUri(), null);
    if (governed == null) {
      return false;
    }
    long acquired = hooks.acquire(governed);
    if (acquired < 0) {
      BlockVerdict verdict = hooks.refusal(governed, acquired);
      callback.failed(verdict.toException(request.getRequestUri()));
      return true;
    }
    if (acquired > 0) {
      callback =
          (AsyncExecCallback)
              Proxy.newProxyInstance(
                  AsyncExecCallback.class.getClassLoader(),
                  new Class<?>[] {AsyncExecCallback.class},
                  new CallbackPermit(callback, governed, acquired));
    }
    return false;
  }
}
