package io.sluice.agent.bootstrap;

/**
 * Per-thread state of the outbound call being made, shared by the HTTP client instrumentations: the
 * outermost instrumented client governs a call and the clients it delegates to (RestTemplate over
 * the JDK client, say) see {@link #isNested()} and stay out; and a high-level client can leave the
 * URI template it expanded for the low-level one that governs the call.
 *
 * <p>One small mutable object per thread that makes outbound calls, allocated on its first call.
 */
public final class OutboundCall {
  private static final ThreadLocal<OutboundCall> STATE = ThreadLocal.withInitial(OutboundCall::new);

  private int depth;
  private String uriTemplate;

  private OutboundCall() {}

  /** Marks the start of a governed client call on this thread; returns true if it is outermost. */
  public static boolean begin() {
    return STATE.get().depth++ == 0;
  }

  /** Ends what {@link #begin()} started; clears the template hint when the outermost call ends. */
  public static void end() {
    OutboundCall call = STATE.get();
    if (--call.depth <= 0) {
      call.depth = 0;
      call.uriTemplate = null;
    }
  }

  /** True while an outer client call is under way on this thread. */
  public static boolean isNested() {
    return STATE.get().depth > 0;
  }

  /** Leaves the caller's URI template for the client that sends the request (may be null). */
  public static void setUriTemplate(String template) {
    STATE.get().uriTemplate = template;
  }

  public static String uriTemplate() {
    return STATE.get().uriTemplate;
  }
}
