package io.sluice.agent.instrumentation.apachehttpclient4;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.OutboundCall;
import io.sluice.agent.bootstrap.SluiceHooks;
import java.net.URI;
import net.bytebuddy.asm.Advice;
import org.apache.http.HttpHost;
import org.apache.http.HttpRequest;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.client.methods.HttpUriRequest;

/**
 * Woven into HttpClient 4's {@code InternalHttpClient/MinimalHttpClient.doExecute(target, request,
 * context)}, where every {@code execute} overload ends: the (mutable) request gets the outbound
 * headers and the call is governed as {@code METHOD host:port/path}; a refusal throws {@code
 * SluiceBlockedException} (an {@code IOException}, as {@code execute} declares). Written without
 * string concatenation or lambdas: the woven classes are Java 6 class files, where the
 * invokedynamic these compile to cannot go.
 */
public final class ClassicClientAdvice {
  private ClassicClientAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static Object enter(
      @Advice.Argument(0) HttpHost target,
      @Advice.Argument(1) HttpRequest request,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    if (!OutboundCall.begin()) {
      return null;
    }
    GovernanceHooks hooks = SluiceHooks.get();
    String[] headers = hooks.outboundHeaders();
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.setHeader(headers[i], headers[i + 1]);
    }
    if (!hooks.governsOutbound()) {
      return null;
    }
    URI uri =
        request instanceof HttpUriRequest
            ? ((HttpUriRequest) request).getURI()
            : URI.create(request.getRequestLine().getUri());
    if (uri.getHost() == null && target != null) {
      // No string concatenation here: HttpClient 4's classes are Java 6 class files, into which
      // an invokedynamic (javac's concatenation since Java 9) cannot be woven.
      uri = URI.create(target.toURI().concat(uri.getRawPath()));
    }
    Object governed = hooks.outboundResource(request.getRequestLine().getMethod(), uri, null);
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
      @Advice.Argument(1) HttpRequest request,
      @Advice.Enter Object refusal,
      @Advice.Return CloseableHttpResponse response,
      @Advice.Thrown(readOnly = false) Throwable thrown,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    OutboundCall.end();
    if (refusal instanceof BlockVerdict) {
      thrown = ((BlockVerdict) refusal).toException(request.getRequestLine().getUri());
      return;
    }
    if (permit > 0) {
      int status =
          thrown == null && response != null && response.getStatusLine() != null
              ? response.getStatusLine().getStatusCode()
              : 0;
      SluiceHooks.get().release(resource, permit, status, thrown);
    }
  }
}
