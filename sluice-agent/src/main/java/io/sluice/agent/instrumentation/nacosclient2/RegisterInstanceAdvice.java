package io.sluice.agent.instrumentation.nacosclient2;

import com.alibaba.nacos.api.naming.pojo.Instance;
import io.sluice.agent.bootstrap.SluiceHooks;
import net.bytebuddy.asm.Advice;

/**
 * Woven into {@code NacosNamingService.registerInstance(serviceName, groupName, Instance)}: adds
 * this instance's lane to the metadata it registers with, unless the application set one itself.
 */
public final class RegisterInstanceAdvice {
  private RegisterInstanceAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void enter(@Advice.Argument(2) Instance instance) {
    String lane = SluiceHooks.get().instanceLane();
    if (lane != null && instance != null && !instance.containsMetadata("sluice.lane")) {
      instance.addMetadata("sluice.lane", lane);
    }
  }
}
