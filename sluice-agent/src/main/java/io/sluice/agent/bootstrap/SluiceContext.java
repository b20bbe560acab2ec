package io.sluice.agent.bootstrap;

/**
 * The governance context of the work running on a thread: the caller's origin (for rules limited by
 * {@code limitApp}) and the request's lane tag, with the forms the lane arrived in. Immutable; at
 * most one per thread, and none on a thread that serves no governed request, so "nothing to
 * propagate" is a single null check.
 *
 * <p>This class sits on the bootstrap class path so that advice woven into any class loader, and
 * the application itself, can see it. Its thread-locals are the per-thread state the agent keeps;
 * whoever sets the context restores the previous value when the unit of work ends ({@link
 * Scope#close()}, {@link #exitServerScope}), so a pooled thread or a shared event loop never
 * carries a context into its next task or request.
 *
 * <p>Lane forms: a request may carry its lane as {@code x-sluice-lane}, as MSE's {@code x-mse-tag}
 * or as the {@code sluice-lane} member of W3C {@code baggage} (read in that order of precedence).
 * Outbound calls carry {@code x-sluice-lane} and every form the request arrived with, so a hop that
 * only understands one of them keeps the lane.
 */
public final class SluiceContext {
  private static final ThreadLocal<SluiceContext> CURRENT = new ThreadLocal<>();
  // Non-null while a server hook owns the thread's context for one request (see enterServerScope).
  private static final ThreadLocal<Boolean> SERVER_SCOPE = new ThreadLocal<>();
  private static final String[] NO_HEADERS = new String[0];

  /** The lane of traffic that the entry rules left in the base: routed as untagged. */
  public static final String BASE_LANE = "base";

  private static final SluiceContext ENTERED_BASE = new SluiceContext(null, BASE_LANE, 0, null);

  /** The lane arrived as MSE's {@code x-mse-tag}. */
  static final int FORM_MSE = 1;

  /** The lane arrived as the {@code sluice-lane} member of W3C {@code baggage}. */
  static final int FORM_BAGGAGE = 2;

  private final String origin;
  private final String lane;
  private final int forms;
  private final String baggage;
  // Outbound headers for this context, computed on first use; racy but idempotent.
  private String[] outboundHeaders;

  private SluiceContext(String origin, String lane, int forms, String baggage) {
    this.origin = origin;
    this.lane = lane;
    this.forms = forms;
    this.baggage = baggage;
  }

  /** A context with the given parts, or null when both are absent (nothing to govern by). */
  public static SluiceContext of(String origin, String lane) {
    if (isBlank(origin) && isBlank(lane)) {
      return null;
    }
    if (origin == null && BASE_LANE.equals(lane)) {
      return ENTERED_BASE;
    }
    return new SluiceContext(isBlank(origin) ? null : origin, isBlank(lane) ? null : lane, 0, null);
  }

  /**
   * The context of an inbound request from its headers (each null when absent): the lane from
   * {@code x-sluice-lane}, else {@code x-mse-tag}, else the {@code sluice-lane} member of {@code
   * baggage}. Null, without allocating, for a request that carries none of them.
   */
  public static SluiceContext inbound(
      String origin, String sluiceLane, String mseTag, String baggage) {
    if (origin == null && sluiceLane == null && mseTag == null && baggage == null) {
      return null;
    }
    String lane = isBlank(sluiceLane) ? null : sluiceLane.trim();
    int forms = 0;
    if (!isBlank(mseTag)) {
      forms |= FORM_MSE;
      if (lane == null) {
        lane = mseTag.trim();
      }
    }
    String fromBaggage = baggage == null ? null : baggageLane(baggage);
    if (fromBaggage != null) {
      forms |= FORM_BAGGAGE;
      if (lane == null) {
        lane = fromBaggage;
      }
    }
    if (isBlank(origin) && lane == null) {
      return null;
    }
    return new SluiceContext(
        isBlank(origin) ? null : origin, lane, forms, fromBaggage == null ? null : baggage);
  }

  /**
   * The value of the {@code sluice-lane} member of a W3C {@code baggage} header ({@code
   * k=v;prop,k2=v2}), percent-decoded; null when absent.
   */
  static String baggageLane(String baggage) {
    int n = baggage.length();
    int i = 0;
    while (i < n) {
      int end = baggage.indexOf(',', i);
      if (end < 0) {
        end = n;
      }
      int eq = baggage.indexOf('=', i);
      if (eq > i && eq < end && baggage.substring(i, eq).trim().equals(Headers.BAGGAGE_LANE)) {
        int valueEnd = baggage.indexOf(';', eq);
        if (valueEnd < 0 || valueEnd > end) {
          valueEnd = end;
        }
        String value = baggage.substring(eq + 1, valueEnd).trim();
        return value.isEmpty() ? null : percentDecode(value);
      }
      i = end + 1;
    }
    return null;
  }

  private static String percentDecode(String value) {
    if (value.indexOf('%') < 0) {
      return value;
    }
    try {
      return java.net.URLDecoder.decode(
          value.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return value;
    }
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

  /**
   * Opens a server scope on this thread for one request: until {@link #exitServerScope}, a hook
   * that learns the request's context later in the same call may make it current ({@link
   * #attachInServerScope}) without closing it itself. Returns what to pass to {@code
   * exitServerScope}. Used where a server runs a request's synchronous part on a shared event loop.
   */
  public static SluiceContext enterServerScope() {
    SERVER_SCOPE.set(Boolean.TRUE);
    return CURRENT.get();
  }

  /**
   * Ends the server scope: the thread's context is what it was before {@link #enterServerScope}.
   */
  public static void exitServerScope(SluiceContext previous) {
    SERVER_SCOPE.remove();
    swap(previous);
  }

  /**
   * Makes {@code context} current if a server scope is open on this thread (the scope's exit
   * restores the previous one); otherwise does nothing, so it can never leak.
   */
  public static void attachInServerScope(SluiceContext context) {
    if (context != null && SERVER_SCOPE.get() != null) {
      CURRENT.set(context);
    }
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
      headers = lane == null ? NO_HEADERS : headersFor(lane, forms, baggage);
      outboundHeaders = headers;
    }
    return headers;
  }

  private static String[] headersFor(String lane, int forms, String baggage) {
    int count = 1 + ((forms & FORM_MSE) != 0 ? 1 : 0) + ((forms & FORM_BAGGAGE) != 0 ? 1 : 0);
    String[] headers = new String[2 * count];
    int i = 0;
    headers[i++] = Headers.LANE;
    headers[i++] = lane;
    if ((forms & FORM_MSE) != 0) {
      headers[i++] = Headers.MSE_LANE;
      headers[i++] = lane;
    }
    if ((forms & FORM_BAGGAGE) != 0) {
      headers[i++] = Headers.BAGGAGE;
      headers[i] = baggage;
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

    /** W3C baggage, whose {@code sluice-lane} member carries the lane. */
    public static final String BAGGAGE = "baggage";

    /** The baggage member that carries the lane. */
    public static final String BAGGAGE_LANE = "sluice-lane";

    /** The calling application's name, matched against a rule's {@code limitApp}. */
    public static final String ORIGIN = "x-sluice-origin";

    private Headers() {}
  }
}
