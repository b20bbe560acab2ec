package io.sluice.agent.instrumentation.okhttp4;

import io.sluice.agent.bootstrap.SluiceHooks;
import net.bytebuddy.asm.Advice;
import okhttp3.Request;

/**
 * Woven into {@code okhttp3.internal.http.RealInterceptorChain.proceed(Request)}: the first link of
 * a call's chain (index 0) passes the request on with the context's outbound headers added, so the
 * application's interceptors and the network see them. Later links are left alone, so a retry or
 * redirect keeps what the first link sent. OkHttp requests are immutable, hence the copy; it is
 * made only when there are headers to add.
 */
public final class ChainHeadersAdvice {
  private ChainHeadersAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void enter(
      @Advice.FieldValue("index") int index,
      @Advice.Argument(value = 0, readOnly = false) Request request) {
    if (index != 0) {
      return;
    }
    String[] headers = SluiceHooks.get().outboundHeaders();
    if (headers.length < 2) {
      return;
    }
    Request.Builder withHeaders = request.newBuilder();
    for (int i = 0; i + 1 < headers.length; i += 2) {
      withHeaders.header(headers[i], headers[i + 1]);
    }
    request = withHeaders.build();
  }
}
