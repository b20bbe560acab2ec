package io.sluice.agent.instrumentation.springcloudloadbalancer4;

import io.sluice.agent.bootstrap.OutboundCall;
import io.sluice.agent.bootstrap.SluiceHooks;
import java.net.URI;
import net.bytebuddy.asm.Advice;

/**
 * Woven into {@code LoadBalancerUriTools.reconstructURI(ServiceInstance, URI)}, where every Spring
 * Cloud client turns {@code http://service/path} into the chosen instance's URI: while some rule
 * names an outbound resource, the pair is left on the thread, so the client that sends the instance
 * URI right after (WebClient's exchange) names the call by the service.
 */
public final class LogicalTargetAdvice {
  private LogicalTargetAdvice() {}

  @Advice.OnMethodExit(suppress = Throwable.class)
  public static void exit(@Advice.Argument(1) URI original, @Advice.Return URI resolved) {
    if (resolved != null && SluiceHooks.get().governsOutbound()) {
      OutboundCall.setLogicalTarget(resolved, original);
    }
  }
}
