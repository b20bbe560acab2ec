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
 * the method's, named as on the provider ({@link GovernanceHooks#rpcCall}). A refused call is not
 * sent: the caller gets an {@code RpcException} ({@code LIMIT_EXCEEDED_EXCEPTION}) naming the rule.
 * An admitted call is released when {@code invoke} returns (for a method that returns a future,
 * when the call was sent).
 */
public final class ConsumerInvocationAdvice {
  private ConsumerInvocationAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static RpcException enter(
      @Advice.Argument(0) Invoker<?> invoker,
      @Advice.Argument(1) RpcInvocation invocation,
      @Advice.Local("sluiceCall") Object call,
      @Advice.Local("sluiceServicePermit") long servicePermit,
      @Advice.Local("sluiceMethodPermit") long methodPermit) {
    GovernanceHooks hooks = SluiceHooks.get();
    String[] headers = hooks.outboundHeaders();
    for (int i = 0; i + 1 < headers.length; i += 2) {
      invocation.setAttachment(headers[i], headers[i + 1]);
    }
    Object resolved =
        hooks.rpcCall(
            invoker.getInterface(),
            invocation.getMethodName(),
            invocation.getParameterTypes(),
            GovernanceHooks.DUBBO_CONSUMER);
    if (resolved == null) {
      return null;
    }
    Object[] args = invocation.getArguments();
    long service = hooks.rpcAcquireService(resolved, args);
    long method = service < 0 ? 0 : hooks.rpcAcquireMethod(resolved, args, service);
    if (service < 0 || method < 0) {
      return new RpcException(
          RpcException.LIMIT_EXCEEDED_EXCEPTION,
          hooks.rpcRefusalMessage(resolved, service, method));
    }
    call = resolved;
    servicePermit = service;
    methodPermit = method;
    return null;
  }

  @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
  public static void exit(
      @Advice.Enter RpcException refusal,
      @Advice.Thrown(readOnly = false) Throwable thrown,
      @Advice.Local("sluiceCall") Object call,
      @Advice.Local("sluiceServicePermit") long servicePermit,
      @Advice.Local("sluiceMethodPermit") long methodPermit) {
    if (refusal != null) {
      thrown = refusal;
      return;
    }
    if (servicePermit > 0 || methodPermit > 0) {
      SluiceHooks.get().rpcRelease(call, servicePermit, methodPermit, thrown);
    }
  }
}
