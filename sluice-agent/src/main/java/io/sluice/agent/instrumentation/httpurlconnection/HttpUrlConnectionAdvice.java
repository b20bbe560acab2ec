package io.sluice.agent.instrumentation.httpurlconnection;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.OutboundCall;
import io.sluice.agent.bootstrap.SluiceHooks;
import java.net.HttpURLConnection;
import net.bytebuddy.asm.Advice;

/**
 * Woven into {@code sun.net.www.protocol.http.HttpURLConnection.getInputStream()}. Only the first
 * call per connection is governed ({@code responseCode} is still -1 then); later calls return the
 * response already read.
 */
public final class HttpUrlConnectionAdvice {
  private HttpUrlConnectionAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static Object enter(
      @Advice.This HttpURLConnection connection,
      @Advice.FieldValue("connected") boolean connected,
      @Advice.FieldValue("responseCode") int responseCode,
      @Advice.Local("sluiceOuter") boolean outer,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit)
      throws java.net.URISyntaxException {
    outer = OutboundCall.begin();
    if (!outer || responseCode != -1) {
      return null;
    }
    GovernanceHooks hooks = SluiceHooks.get();
    if (!connected) {
      String[] headers = hooks.outboundHeaders();
      for (int i = 0; i + 1 < headers.length; i += 2) {
        connection.setRequestProperty(headers[i], headers[i + 1]);
      }
    }
    if (!hooks.governsOutbound()) {
      return null;
    }
    Object governed =
        hooks.outboundResource(connection.getRequestMethod(), connection.getURL().toURI(), null);
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
      @Advice.This HttpURLConnection connection,
      @Advice.Enter Object refusal,
      @Advice.FieldValue("responseCode") int responseCode,
      @Advice.Thrown(readOnly = false) Throwable thrown,
      @Advice.Local("sluiceResource") Object resource,
      @Advice.Local("sluicePermit") long permit) {
    OutboundCall.end();
    if (refusal instanceof BlockVerdict) {
      thrown = ((BlockVerdict) refusal).toException(connection.getURL().toString());
      return;
    }
    if (permit > 0) {
      // getInputStream throws for 4xx and 5xx; with a status the status decides, not the throw.
      SluiceHooks.get().release(resource, permit, responseCode, responseCode > 0 ? null : thrown);
    }
  }
}
