package io.sluice.agent.instrumentation.okhttp4;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.OutboundCall;
import io.sluice.agent.bootstrap.SluiceHooks;
import net.bytebuddy.asm.Advice;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * Woven into {@code okhttp3.internal.connection.RealCall.getResponseWithInterceptorChain$okhttp()},
 * which both {@code execute()} and an enqueued call's {@code AsyncCall.run()} go through. A refusal
 * is thrown from there as {@code SluiceBlockedException} (an {@code IOException}): {@code
 * execute()} throws it to its caller, an enqueued call hands it to the callback's {@code
 * onFailure}.
 */
public final class RealCallAdvice {
  private RealCallAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static Object enter(
      @Advice.This Call call,
      @Advice.Local("sluiceOuter") boolean outer,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    outer = OutboundCall.begin();
    GovernanceHooks hooks = SluiceHooks.get();
    if (!outer || !hooks.governsOutbound()) {
      return null;
    }
    Request request = call.request();
    Object governed = hooks.outboundResource(request.method(), request.url().uri(), null);
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
      @Advice.This Call call,
      @Advice.Enter Object refusal,
      @Advice.Return(readOnly = false) Response response,
      @Advice.Thrown(readOnly = false) Throwable thrown,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    OutboundCall.end();
    if (refusal instanceof BlockVerdict) {
      BlockVerdict verdict = (BlockVerdict) refusal;
      if (verdict.respondsOutbound()) {
        Response.Builder synthetic =
            new Response.Builder()
                .request(call.request())
                .protocol(Protocol.HTTP_1_1)
                .code(verdict.status())
                .message(verdict.reasonPhrase())
                .body(
                    ResponseBody.create(
                        verdict.body(),
                        verdict.contentType() == null
                            ? null
                            : MediaType.parse(verdict.contentType())));
        String[] headers = verdict.headers();
        for (int i = 0; i + 1 < headers.length; i += 2) {
          synthetic.addHeader(headers[i], headers[i + 1]);
        }
        response = synthetic.build();
      } else {
        thrown = verdict.toException(call.request().url().toString());
      }
      return;
    }
    if (permit > 0) {
      int status = thrown == null && response != null ? response.code() : 0;
      SluiceHooks.get().release(resource, permit, status, thrown);
    }
  }
}
