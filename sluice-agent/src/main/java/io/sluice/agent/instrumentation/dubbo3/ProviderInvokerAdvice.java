package io.sluice.agent.instrumentation.dubbo3;

import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.bootstrap.SluiceHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import org.apache.dubbo.rpc.AsyncRpcResult;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.Result;
import org.apache.dubbo.rpc.RpcException;
import org.apache.dubbo.rpc.proxy.AbstractProxyInvoker;

/**
 * Woven into {@code AbstractProxyInvoker.invoke(Invocation)}, where a Dubbo provider calls the
 * service's implementation (after the provider's filters, on whatever protocol): the call runs in
 * the context its attachments carry (the caller's application, the lane: {@link
 * GovernanceHooks#rpcInboundContext}), and is governed as the interface's resource and then the
 * method's ({@code interface:method(types)}, with its arguments for hot-parameter rules), as
 * Sentinel's Dubbo adapter enters them. A refused call skips the implementation and answers the
 * consumer with an {@code RpcException} ({@code LIMIT_EXCEEDED_EXCEPTION}) whose message names the
 * rule's kind and resource; an admitted one is released with its outcome (an exception in the
 * result is an error).
 */
public final class ProviderInvokerAdvice {
  private ProviderInvokerAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static RpcException enter(
      @Advice.This AbstractProxyInvoker<?> invoker,
      @Advice.Argument(0) Invocation invocation,
      @Advice.Local("sluiceCall") Object call,
      @Advice.Local("sluiceServicePermit") long servicePermit,
      @Advice.Local("sluiceMethodPermit") long methodPermit,
      @Advice.Local("sluiceAttached") boolean attached,
      @Advice.Local("sluicePrevious") SluiceContext previous) {
    GovernanceHooks hooks = SluiceHooks.get();
    // Shared per caller (no allocation) for a call that carries no lane.
    SluiceContext context = hooks.rpcInboundContext(invocation.getObjectAttachments());
    if (context != null) {
      previous = SluiceContext.replace(context);
      attached = true;
    }
    Object resolved =
        hooks.rpcCall(
            invoker.getInterface(),
            invocation.getMethodName(),
            invocation.getParameterTypes(),
            GovernanceHooks.DUBBO_PROVIDER);
    if (resolved == null) {
      return null;
    }
    // CHAIN rules see the method as the entrance of the calls made while serving it.
    SluiceContext routed = hooks.rpcRouteContext(resolved);
    if (routed != null) {
      SluiceContext replaced = SluiceContext.replace(routed);
      if (!attached) {
        previous = replaced;
        attached = true;
      }
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
      @Advice.Argument(0) Invocation invocation,
      @Advice.Enter RpcException refusal,
      @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Result result,
      @Advice.Thrown Throwable thrown,
      @Advice.Local("sluiceCall") Object call,
      @Advice.Local("sluiceServicePermit") long servicePermit,
      @Advice.Local("sluiceMethodPermit") long methodPermit,
      @Advice.Local("sluiceAttached") boolean attached,
      @Advice.Local("sluicePrevious") SluiceContext previous) {
    if (attached) {
      SluiceContext.restore(previous);
    }
    if (refusal != null) {
      result = AsyncRpcResult.newDefaultAsyncResult(refusal, invocation);
      return;
    }
    if (servicePermit <= 0 && methodPermit <= 0) {
      return;
    }
    Throwable error = thrown;
    if (error == null && result != null && result.hasException()) {
      error = result.getException();
    }
    SluiceHooks.get().rpcRelease(call, servicePermit, methodPermit, error);
  }
}
