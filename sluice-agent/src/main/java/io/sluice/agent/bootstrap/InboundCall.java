package io.sluice.agent.bootstrap;

/**
 * Per-thread state of an inbound call whose decision waits for the handler method's arguments: a
 * hot-parameter rule reads an argument by index ({@code paramIdx}), and the web framework resolves
 * the arguments only after the route is known. The route's advice {@linkplain #defer defers} the
 * decision; the advice where the handler method is invoked with its arguments takes it ({@link
 * #deferredFor}, {@link #decided}) and, when refused, skips the method and throws {@link #REFUSED};
 * the route's advice then {@linkplain #finish finishes}: it answers the refusal or releases the
 * permit.
 *
 * <p>One small mutable object per thread that serves such routes, allocated on its first deferral.
 * A call that arrives while another is deferred on the same thread (a forward from inside a
 * handler) is not deferred: it is decided at its route without arguments.
 */
public final class InboundCall {
  private static final ThreadLocal<InboundCall> STATE = ThreadLocal.withInitial(InboundCall::new);

  /**
   * Thrown out of the handler method's invocation when the deferred decision refused the call; the
   * route's advice turns it into the refusal answer. Shared and without a stack trace.
   */
  public static final RuntimeException REFUSED = new Refused();

  private static final int IDLE = 0;
  private static final int DEFERRED = 1;
  private static final int DECIDED = 2;

  private int phase;
  private Object resource;
  private Object method;
  private Object request;
  private long permit;

  private InboundCall() {}

  /**
   * Defers the decision on {@code resource} until {@code method} (the handler's {@code
   * java.lang.reflect.Method}) is invoked with its arguments; false, deferring nothing, if another
   * call is deferred on this thread.
   *
   * @param request the inbound request, for rules that read its attributes
   */
  public static boolean defer(Object resource, Object method, Object request) {
    InboundCall call = STATE.get();
    if (call.phase != IDLE) {
      return false;
    }
    call.phase = DEFERRED;
    call.resource = resource;
    call.method = method;
    call.request = request;
    call.permit = 0;
    return true;
  }

  /** The deferred call waiting for {@code method}'s invocation on this thread, or null. */
  public static InboundCall deferredFor(Object method) {
    InboundCall call = STATE.get();
    return call.phase == DEFERRED && call.method.equals(method) ? call : null;
  }

  public Object resource() {
    return resource;
  }

  public Object request() {
    return request;
  }

  /** Records the decision taken with the arguments. */
  public void decided(long permit) {
    this.permit = permit;
    this.phase = DECIDED;
  }

  /**
   * Ends the deferred call on this thread: its permit (negative if refused), or 0 (nothing to
   * release) if the handler method was never invoked, e.g. because its arguments failed to bind.
   */
  public static long finish() {
    InboundCall call = STATE.get();
    long permit = call.phase == DECIDED ? call.permit : 0;
    call.phase = IDLE;
    call.resource = null;
    call.method = null;
    call.request = null;
    call.permit = 0;
    return permit;
  }

  private static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused() {
      super("refused by Sluice", null, false, false);
    }
  }
}
