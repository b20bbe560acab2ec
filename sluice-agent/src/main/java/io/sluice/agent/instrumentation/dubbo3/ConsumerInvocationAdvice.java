package io.sluice.agent.instrumentation.dubbo3;

import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.SluiceHooks;
import net.bytebuddy.asm.Advice;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.RpcException;
import org.apache.dubbo.rpc.RpcInvocation;

/**
 * Woven into {@code InvocationUtil.invoke(Invoker, RpcInvocation)}, where a Dubbo consumer's proxy
 * hands each call to the cluster (once per call, before load balancing and retries): the call
 * carries the outbound attachments (this application's name as {@code x-sluice-origin}, the lane in
 * the forms it arrived in), and client-side rules govern it as the interface's resource and then
 * the method's, named as on the provider. A refused call is not sent: the caller gets an {@code
 * RpcException} ({@code LIMIT_EXCEEDED_EXCEPTION}) naming the rule. An admitted call is released
 * when {@code invoke} returns (for a method that returns a future, when the call was sent).
 */
public final class ConsumerInvocationAdvice {
  private ConsumerInvocationAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static RpcException enter(
      @Advice.Argument(0) Invoker<?> invoker,
      @Advice.Argument(1) RpcInvocation invocation,
      @Advice.Local("sluiceService") Object service,
      @Advice.Local("sluiceMethod") Object method,
      @Advice.Local("sluiceServicePermit") long servicePermit,
      @Advice.Local("sluiceMethodPermit") long methodPermit) {
    GovernanceHooks hooks = SluiceHooks.get();
    String[] headers = hooks.outboundHeaders();
    for (int i = 0; i + 1 < headers.length; i += 2) {
      invocation.setAttachment(headers[i], headers[i + 1]);
    }
    Class<?> type = invoker.getInterface();
    Object methodResource =
        hooks.rpcMethodResource(
            type,
            invocation.getMethodName(),
            invocation.getParameterTypes(),
            GovernanceHooks.DUBBO_CONSUMER);
    if (methodResource == null) {
      return null;
    }
    Object[] args = invocation.getArguments();
    Object serviceResource = hooks.rpcServiceResource(type, GovernanceHooks.DUBBO_CONSUMER);
    if (serviceResource != null) {
      long permit = hooks.acquire(serviceResource, args, null, GovernanceHooks.SERVLET_REQUEST);
      if (permit < 0) {
        return new RpcException(
            RpcException.LIMIT_EXCEEDED_EXCEPTION, hooks.refusalMessage(serviceResource, permit));
      }
      service = serviceResource;
      servicePermit = permit;
    }
    long permit = hooks.acquire(methodResource, args, null, GovernanceHooks.SERVLET_REQUEST);
    if (permit < 0) {
      if (servicePermit > 0) {
        hooks.release(service, servicePermit, 0, null);
        servicePermit = 0;
      }
      return new RpcException(
          RpcException.LIMIT_EXCEEDED_EXCEPTION, hooks.refusalMessage(methodResource, permit));
    }
    method = methodResource;
    methodPermit = permit;
    return null;
  }

  @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
  public static void exit(
      @Advice.Enter RpcException refusal,
      @Advice.Thrown(readOnly = false) Throwable thrown,
      @Advice.Local("sluiceService") Object service,
      @Advice.Local("sluiceMethod") Object method,
      @Advice.Local("sluiceServicePermit") long servicePermit,
      @Advice.Local("sluiceMethodPermit") long methodPermit) {
    if (refusal != null) {
      thrown = refusal;
      return;
    }
    GovernanceHooks hooks = SluiceHooks.get();
    if (methodPermit > 0) {
      hooks.release(method, methodPermit, 0, thrown);
    }
    if (servicePermit > 0) {
      hooks.release(service, servicePermit, 0, thrown);
    }
  }
}
