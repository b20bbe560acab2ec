package io.sluice.agent.instrumentation.apachehttpclient5;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.OutboundCall;
import io.sluice.agent.bootstrap.SluiceHooks;
import java.net.URI;
import net.bytebuddy.asm.Advice;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.message.BasicClassicHttpResponse;

/** Woven into {@code InternalHttpClient/MinimalHttpClient.doExecute(target, request, context)}. */
public final class ClassicClientAdvice {
  private ClassicClientAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static Object enter(
      @Advice.Argument(0) HttpHost target,
      @Advice.Argument(1) ClassicHttpRequest request,
      @Advice.Local("sluiceOuter") boolean outer,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit)
      throws java.net.URISyntaxException {
    outer = OutboundCall.begin();
    if (!outer) {
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
    URI uri = request.getUri();
    if (uri.getHost() == null && target != null) {
      uri = URI.create(target.toURI().concat(uri.getRawPath()));
    }
    Object governed = hooks.outboundResource(request.getMethod(), uri, null);
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
      @Advice.Argument(1) ClassicHttpRequest request,
      @Advice.Enter Object refusal,
      @Advice.Return(readOnly = false) CloseableHttpResponse response,
      @Advice.Thrown(readOnly = false) Throwable thrown,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    OutboundCall.end();
    if (refusal instanceof BlockVerdict) {
      BlockVerdict verdict = (BlockVerdict) refusal;
      if (verdict.respondsOutbound()) {
        BasicClassicHttpResponse synthetic =
            new BasicClassicHttpResponse(verdict.status(), verdict.reasonPhrase());
        String[] headers = verdict.headers();
        for (int i = 0; i + 1 < headers.length; i += 2) {
          synthetic.addHeader(headers[i], headers[i + 1]);
        }
        synthetic.setEntity(
            new ByteArrayEntity(
                verdict.body(),
                verdict.contentType() == null ? null : ContentType.parse(verdict.contentType())));
        response = CloseableHttpResponse.adapt(synthetic);
      } else {
        thrown = verdict.toException(request.getRequestUri());
      }
      return;
    }
    if (permit > 0) {
      int status = thrown == null && response != null ? response.getCode() : 0;
      SluiceHooks.get().release(resource, permit, status, thrown);
    }
  }
}
