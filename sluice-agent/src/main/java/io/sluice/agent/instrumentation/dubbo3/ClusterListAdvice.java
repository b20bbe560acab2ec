package io.sluice.agent.instrumentation.dubbo3;

import io.sluice.agent.bootstrap.SluiceHooks;
import java.util.List;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import org.apache.dubbo.rpc.cluster.support.AbstractClusterInvoker;

/**
 * Woven into {@code AbstractClusterInvoker.list(Invocation)}, which hands a consumer's cluster the
 * providers its routers left for a call (before load balancing, and again on each retry): keeps
 * those of the call's lane, else the base ones; an untagged call never gets a lane provider. The
 * split is precomputed per provider list of the cluster's {@code Directory}, which the agent reads
 * as the one object Dubbo keeps until the registry changes it (its public accessors copy it).
 */
public final class ClusterListAdvice {
  private ClusterListAdvice() {}

  @Advice.OnMethodExit(suppress = Throwable.class)
  public static void exit(
      @Advice.This AbstractClusterInvoker<?> cluster,
      @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) List<?> invokers) {
    invokers = SluiceHooks.get().rpcLaneInvokers(invokers, cluster.getDirectory());
  }
}
