package io.sluice.agent.instrumentation.springcloudloadbalancer4;

import io.sluice.agent.bootstrap.SluiceHooks;
import net.bytebuddy.asm.Advice;

/**
 * Woven into the constructor of Spring Cloud LoadBalancer's {@code
 * CachingServiceInstanceListSupplier}: hands the agent the cache manager the instance lists are
 * kept in, so a registry push can evict a stale list at once instead of after its time to live.
 */
public final class InstanceCacheAdvice {
  private InstanceCacheAdvice() {}

  @Advice.OnMethodExit(suppress = Throwable.class)
  public static void exit(@Advice.Argument(1) Object cacheManager) {
    SluiceHooks.get().instanceCache(cacheManager);
  }
}
