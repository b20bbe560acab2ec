package io.sluice.agent.bootstrap;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * Stands between an asynchronous client and its completion callback (through a {@link
 * java.lang.reflect.Proxy} made in the client's class loader, since the agent cannot name the
 * callback type): passes every call on, and releases the permit of the admitted call it belongs to
 * when the exchange ends, with the status of the response it saw. Made for Apache HttpClient 5's
 * {@code AsyncExecCallback}: {@code handleResponse(response, entity)} carries the response, {@code
 * completed()} and {@code failed(cause)} end the exchange. Allocated only for governed calls;
 * releases exactly once.
 */
public final class CallbackPermit implements InvocationHandler {
  private static final AtomicIntegerFieldUpdater<CallbackPermit> RELEASED =
      AtomicIntegerFieldUpdater.newUpdater(CallbackPermit.class, "released");

  private final Object delegate;
  private final Object resource;
  private final long permit;
  private volatile int status;
  private volatile int released;

  public CallbackPermit(Object delegate, Object resource, long permit) {
    this.delegate = delegate;
    this.resource = resource;
    this.permit = permit;
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    switch (method.getName()) {
      case "handleResponse":
        if (args != null && args.length > 0 && args[0] != null) {
          status = SluiceHooks.get().statusOf(args[0]);
        }
        break;
      case "completed":
        release(null);
        break;
      case "failed":
        release(
            args != null && args.length > 0 && args[0] instanceof Throwable
                ? (Throwable) args[0]
                : new IllegalStateException("failed"));
        break;
      case "hashCode":
        return System.identityHashCode(proxy);
      case "equals":
        return proxy == args[0];
      case "toString":
        return "sluice permit for " + delegate;
      default:
        break;
    }
    try {
      return method.invoke(delegate, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private void release(Throwable error) {
    if (RELEASED.compareAndSet(this, 0, 1)) {
      SluiceHooks.get().release(resource, permit, status, error);
    }
  }
}
