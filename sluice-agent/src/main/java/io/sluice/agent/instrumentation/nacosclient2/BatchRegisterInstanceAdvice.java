package io.sluice.agent.instrumentation.nacosclient2;

import com.alibaba.nacos.api.naming.pojo.Instance;
import io.sluice.agent.bootstrap.SluiceHooks;
import java.util.List;
import net.bytebuddy.asm.Advice;

/** Woven into {@code NacosNamingService.batchRegisterInstance(...)}: as for one instance. */
public final class BatchRegisterInstanceAdvice {
  private BatchRegisterInstanceAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static void enter(@Advice.Argument(2) List<Instance> instances) {
    String lane = SluiceHooks.get().instanceLane();
    if (lane == null || instances == null) {
      return;
    }
    for (Instance instance : instances) {
      if (instance != null && !instance.containsMetadata("sluice.lane")) {
        instance.addMetadata("sluice.lane", lane);
      }
    }
  }
}
