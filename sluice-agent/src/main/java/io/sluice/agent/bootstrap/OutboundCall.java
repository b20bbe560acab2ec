package io.sluice.agent.bootstrap;

/**
 * Per-thread state of the outbound call being made, shared by the HTTP client instrumentations: the
 * outermost instrumented client governs a call and the clients it delegates to (RestTemplate over
 * the JDK client, say) see {@link #isNested()} and stay out; a high-level client can leave the URI
 * template it expanded for the low-level one that governs the call; and a load balancer that just
 * turned a logical URI ({@code http://orders/...}) into an instance's leaves the pair, so the
 * client that sends the instance URI right after, on the same thread, names the call by the
 * service.
 *
 * <p>One small mutable object per thread that makes outbound calls, allocated on its first call.
 */
public final class OutboundCall {
  private static final ThreadLocal<OutboundCall> STATE = ThreadLocal.withInitial(OutboundCall::new);

  private int depth;
  private String uriTemplate;
  private Object resolvedUri;
  private java.net.URI logicalUri;

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

  /**
   * A load balancer resolved {@code logical} (whose host is the service id) to {@code resolved}, an
   * instance's URI about to be sent from this thread.
   */
  public static void setLogicalTarget(Object resolved, java.net.URI logical) {
    OutboundCall call = STATE.get();
    call.resolvedUri = resolved;
    call.logicalUri = logical;
  }

  /**
   * The logical URI {@code sent} was resolved from, if it is the very URI object a load balancer
   * just resolved on this thread; null otherwise. Either way the pair is forgotten.
   */
  public static java.net.URI takeLogicalTarget(Object sent) {
    OutboundCall call = STATE.get();
    java.net.URI logical = call.resolvedUri == sent ? call.logicalUri : null;
    call.resolvedUri = null;
    call.logicalUri = null;
    return logical;
  }
}
