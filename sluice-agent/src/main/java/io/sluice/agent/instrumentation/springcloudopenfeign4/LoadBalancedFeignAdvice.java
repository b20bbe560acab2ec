package io.sluice.agent.instrumentation.springcloudopenfeign4;

import feign.MethodMetadata;
import feign.Request;
import feign.RequestTemplate;
import feign.Response;
import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.OutboundCall;
import io.sluice.agent.bootstrap.SluiceHooks;
import java.net.URI;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import net.bytebuddy.asm.Advice;

/**
 * Woven into Spring Cloud OpenFeign's {@code FeignBlockingLoadBalancerClient.execute(request,
 * options)} (and its retrying twin), which receives the call with its logical URL ({@code
 * http://service/path}) before the load balancer picks an instance: the call is governed here,
 * named by the service and the Feign method's path template ({@code GET orders/orders/{id}}), and
 * the request gets the outbound headers. The client the call is then delegated to (the JDK's {@code
 * HttpURLConnection}, Apache, OkHttp) sees it as nested and stays out. A refusal throws {@code
 * SluiceBlockedException} (an {@code IOException}, as Feign clients throw), or returns the
 * resource's synthetic fallback response.
 */
public final class LoadBalancedFeignAdvice {
  private LoadBalancedFeignAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static BlockVerdict enter(
      @Advice.Argument(value = 0, readOnly = false) Request request,
      @Advice.Local("sluiceOuter") boolean outer,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    outer = OutboundCall.begin();
    if (!outer) {
      return null;
    }
    GovernanceHooks hooks = SluiceHooks.get();
    String[] headers = hooks.outboundHeaders();
    if (headers.length >= 2) {
      Map<String, Collection<String>> withHeaders = new LinkedHashMap<>(request.headers());
      for (int i = 0; i + 1 < headers.length; i += 2) {
        withHeaders.put(headers[i], Collections.singletonList(headers[i + 1]));
      }
      request =
          Request.create(
              request.httpMethod(),
              request.url(),
              withHeaders,
              request.body(),
              request.charset(),
              request.requestTemplate());
    }
    if (!hooks.governsOutbound()) {
      return null;
    }
    String template = null;
    RequestTemplate requestTemplate = request.requestTemplate();
    MethodMetadata metadata = requestTemplate == null ? null : requestTemplate.methodMetadata();
    if (metadata != null && metadata.template() != null) {
      template = metadata.template().path();
    }
    Object governed =
        hooks.outboundResource(request.httpMethod().name(), URI.create(request.url()), template);
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
      @Advice.Argument(0) Request request,
      @Advice.Enter BlockVerdict refusal,
      @Advice.Return(readOnly = false) Response response,
      @Advice.Thrown(readOnly = false) Throwable thrown,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    OutboundCall.end();
    if (refusal != null) {
      if (refusal.respondsOutbound()) {
        Map<String, Collection<String>> headers = new LinkedHashMap<>();
        String[] pairs = refusal.headers();
        for (int i = 0; i + 1 < pairs.length; i += 2) {
          headers.put(pairs[i], Collections.singletonList(pairs[i + 1]));
        }
        if (refusal.contentType() != null) {
          headers.put("Content-Type", Collections.singletonList(refusal.contentType()));
        }
        response =
            Response.builder()
                .request(request)
                .status(refusal.status())
                .reason(refusal.reasonPhrase())
                .headers(headers)
                .body(refusal.body())
                .build();
      } else {
        thrown = refusal.toException(request.url());
      }
      return;
    }
    if (permit > 0) {
      int status = thrown == null && response != null ? response.status() : 0;
      SluiceHooks.get().release(resource, permit, status, thrown);
    }
  }
}
