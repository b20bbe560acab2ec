package io.sluice.agent.bootstrap;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The permit of an admitted inbound request that went asynchronous (Servlet async, which Spring MVC
 * uses for {@code Callable}, {@code DeferredResult}, {@code CompletableFuture} and friends): held
 * until the request ends, not until the handler method returns, so concurrency limits and response
 * times see the whole request.
 *
 * <p>Released exactly once, whichever comes first: the advice releases it with the final status
 * when the container's async dispatch has finished the request (the usual end); or, when no
 * dispatch comes (the client went away), the servlet {@code AsyncListener} this object backs
 * (through a {@link java.lang.reflect.Proxy} made in the container's class loader, since the agent
 * cannot name servlet types here) releases it when the request completes.
 */
public final class AsyncPermit implements InvocationHandler {
  /** The request attribute that carries it from the first dispatch to the async one. */
  public static final String ATTRIBUTE = "io.sluice.agent.asyncPermit";

  private static final AtomicIntegerFieldUpdater<AsyncPermit> RELEASED =
      AtomicIntegerFieldUpdater.newUpdater(AsyncPermit.class, "released");

  private final Object resource;
  private final long permit;
  private volatile int released;

  public AsyncPermit(Object resource, long permit) {
    this.resource = resource;
    this.permit = permit;
  }

  /** Releases the permit with the request's outcome, unless it was released already. */
  public void release(int status, Throwable error) {
    if (RELEASED.compareAndSet(this, 0, 1)) {
      SluiceHooks.get().release(resource, permit, status, error);
    }
  }

  /**
   * The {@code AsyncListener} methods. Only {@code onComplete} releases: after {@code onError} and
   * {@code onTimeout} Spring still dispatches the request to answer it, and that dispatch releases
   * with the real status; {@code onComplete} comes last in every case and is the safety net.
   */
  @Override
  public Object invoke(Object proxy, Method method, Object[] args) {
    switch (method.getName()) {
      case "onComplete":
        release(0, null);
        return null;
      case "hashCode":
        return System.identityHashCode(proxy);
      case "equals":
        return proxy == args[0];
      case "toString":
        return "sluice async permit";
      default:
        return null;
    }
  }
}
