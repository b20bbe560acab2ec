package io.sluice.agent.instrumentation.nacosclient2;

import com.alibaba.nacos.api.naming.pojo.ServiceInfo;
import io.sluice.agent.bootstrap.SluiceHooks;
import net.bytebuddy.asm.Advice;

/**
 * Woven into nacos-client's {@code ServiceInfoHolder.processServiceInfo(ServiceInfo)}, where every
 * pushed or queried instance list is applied to the client's cache: once it has been applied, the
 * agent drops the copies load balancers cached of the service's old list.
 */
public final class ServiceInfoAdvice {
  private ServiceInfoAdvice() {}

  @Advice.OnMethodExit(suppress = Throwable.class)
  public static void exit(@Advice.Argument(0) ServiceInfo serviceInfo) {
    if (serviceInfo != null) {
      SluiceHooks.get().registryChanged(serviceInfo.getName());
    }
  }
}
