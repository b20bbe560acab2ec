package io.sluice.agent.bootstrap;

/**
 * The governance context of the work running on a thread: the caller's origin (for rules limited by
 * {@code limitApp}) and the request's lane tag. Immutable; at most one per thread, and none on a
 * thread that serves no governed request, so "nothing to propagate" is a single null check.
 *
 * <p>This class sits on the bootstrap class path so that advice woven into any class loader, and
 * the application itself, can see it. Its thread-local is the one piece of per-thread state the
 * agent keeps; whoever sets it restores the previous value when the unit of work ends ({@link
 * Scope#close()}), so a pooled thread never carries a context into its next task.
 */
public final class SluiceContext {
  private static final ThreadLocal<SluiceContext> CURRENT = new ThreadLocal<>();
  private static final String[] NO_HEADERS = new String[0];

  private final String origin;
  private final String lane;
  // Outbound headers for this context, computed on first use; racy but idempotent.
  private String[] outboundHeaders;

  private SluiceContext(String origin, String lane) {
    this.origin = origin;
    this.lane = lane;
  }

  /** A context with the given parts, or null when both are absent (nothing to govern by). */
  public static SluiceContext of(String origin, String lane) {
    if (isBlank(origin) && isBlank(lane)) {
      return null;
    }
    return new SluiceContext(isBlank(origin) ? null : origin, isBlank(lane) ? null : lane);
  }

  /** The context of the current thread, or null. */
  public static SluiceContext current() {
    return CURRENT.get();
  }

  /**
   * Makes {@code context} current until the returned scope is closed, which restores whatever was
   * current before. Returns null (nothing to close) when {@code context} is null.
   */
  public static Scope attach(SluiceContext context) {
    if (context == null) {
      return null;
    }
    SluiceContext previous = CURRENT.get();
    CURRENT.set(context);
    return new Scope(previous);
  }

  static SluiceContext swap(SluiceContext next) {
    SluiceContext previous = CURRENT.get();
    if (next == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(next);
    }
    return previous;
  }

  public String origin() {
    return origin;
  }

  public String lane() {
    return lane;
  }

  /**
   * The headers an outbound request made in this context carries, as name, value pairs. Cached per
   * context, so a request that makes many calls builds them once.
   */
  public String[] outboundHeaders() {
    String[] headers = outboundHeaders;
    if (headers == null) {
      headers = lane == null ? NO_HEADERS : new String[] {Headers.LANE, lane};
      outboundHeaders = headers;
    }
    return headers;
  }

  private static boolean isBlank(String s) {
    return s == null || s.isEmpty();
  }

  @Override
  public String toString() {
    return "SluiceContext{origin=" + origin + ", lane=" + lane + '}';
  }

  /** Restores the context that was current before {@link #attach}. */
  public static final class Scope implements AutoCloseable {
    private final SluiceContext previous;

    Scope(SluiceContext previous) {
      this.previous = previous;
    }

    @Override
    public void close() {
      swap(previous);
    }
  }

  /** The request headers the context is read from and written to. */
  public static final class Headers {
    /** Sluice's lane header. */
    public static final String LANE = "x-sluice-lane";

    /** MSE's lane header, accepted so applications prepared for MSE move unchanged. */
    public static final String MSE_LANE = "x-mse-tag";

    /** The calling application's name, matched against a rule's {@code limitApp}. */
    public static final String ORIGIN = "x-sluice-origin";

    private Headers() {}
  }
}
