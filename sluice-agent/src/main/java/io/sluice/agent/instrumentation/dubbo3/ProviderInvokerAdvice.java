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
 * the context its attachments carry (the caller's application, the lane), and is governed as the
 * interface's resource and then the method's ({@code interface:method(types)}, with its arguments
 * for hot-parameter rules), as Sentinel's Dubbo adapter enters them. A refused call skips the
 * implementation and answers the consumer with an {@code RpcException} ({@code
 * LIMIT_EXCEEDED_EXCEPTION}) whose message names the rule's kind and resource; an admitted one is
 * released with its outcome (an exception in the result is an error).
 */
public final class ProviderInvokerAdvice {
  private ProviderInvokerAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = Advice.OnNonDefaultValue.class)
  public static RpcException enter(
      @Advice.This AbstractProxyInvoker<?> invoker,
      @Advice.Argument(0) Invocation invocation,
      @Advice.Local("sluiceService") Object service,
      @Advice.Local("sluiceMethod") Object method,
      @Advice.Local("sluiceServicePermit") long servicePermit,
      @Advice.Local("sluiceMethodPermit") long methodPermit,
      @Advice.Local("sluiceAttached") boolean attached,
      @Advice.Local("sluicePrevious") SluiceContext previous) {
    GovernanceHooks hooks = SluiceHooks.get();
    // The caller: a governed consumer's name, else Sentinel's adapter's, else Dubbo's own.
    String origin =
        SluiceContext.originOf(
            invocation.getAttachment(SluiceContext.Headers.ORIGIN),
            invocation.getAttachment("dubboApplication"));
    if (origin == null) {
      origin = invocation.getAttachment("remote.application");
    }
    // Shared per caller (no allocation) for a call that carries no lane.
    SluiceContext context =
        SluiceContext.inbound(
            origin,
            invocation.getAttachment(SluiceContext.Headers.LANE),
            invocation.getAttachment(SluiceContext.Headers.MSE_LANE),
            invocation.getAttachment(SluiceContext.Headers.BAGGAGE));
    if (context != null) {
      previous = SluiceContext.replace(context);
      attached = true;
    }
    Class<?> type = invoker.getInterface();
    Object methodResource =
        hooks.rpcMethodResource(
            type,
            invocation.getMethodName(),
            invocation.getParameterTypes(),
            GovernanceHooks.DUBBO_PROVIDER);
    if (methodResource == null) {
      return null;
    }
    // CHAIN rules see the method as the entrance of the calls made while serving it.
    SluiceContext routed = hooks.routeContext(methodResource);
    if (routed != null) {
      SluiceContext replaced = SluiceContext.replace(routed);
      if (!attached) {
        previous = replaced;
        attached = true;
      }
    }
    Object[] args = invocation.getArguments();
    Object serviceResource = hooks.rpcServiceResource(type, GovernanceHooks.DUBBO_PROVIDER);
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
      @Advice.Argument(0) Invocation invocation,
      @Advice.Enter RpcException refusal,
      @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Result result,
      @Advice.Thrown Throwable thrown,
      @Advice.Local("sluiceService") Object service,
      @Advice.Local("sluiceMethod") Object method,
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
    GovernanceHooks hooks = SluiceHooks.get();
    if (methodPermit > 0) {
      hooks.release(method, methodPermit, 0, error);
    }
    if (servicePermit > 0) {
      hooks.release(service, servicePermit, 0, error);
    }
  }
}
