package io.sluice.agent.instrumentation.springcloudloadbalancer4;

import io.sluice.agent.bootstrap.SluiceHooks;
import java.util.List;
import net.bytebuddy.asm.Advice;

/**
 * Woven into the {@code getInstanceResponse(List)} of Spring Cloud LoadBalancer's round-robin and
 * random balancers: the list they pick from becomes the one of the current request's lane (or its
 * base instances), a precomputed list, so the pick itself is unchanged.
 */
public final class LaneInstancesAdvice {
  private LaneInstancesAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  @SuppressWarnings({"rawtypes", "unused"})
  public static void enter(@Advice.Argument(value = 0, readOnly = false) List instances) {
    instances = SluiceHooks.get().laneInstances(instances);
  }
}
