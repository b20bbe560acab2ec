package io.sluice.agent.bootstrap;

/**
 * The governance context of the work running on a thread: the caller's origin (for rules limited by
 * {@code limitApp} and authority rules), the request's lane tag with the forms the lane arrived in,
 * and the entrance (the inbound resource being served, for CHAIN rules). Immutable; at most one per
 * thread, and none on a thread that serves no governed request, so "nothing to propagate" is a
 * single null check.
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
 *
 * <p>Origin: the calling application's name, from {@code x-sluice-origin} (which every governed
 * application sends) or Sentinel's {@code S-user}. A context with an origin only (the common case
 * between governed applications) is shared per origin, one with an origin and a lane that arrived
 * as {@code x-sluice-lane} alone is shared per origin and lane, and one with a lane but no origin
 * (a request the entry rules put in a lane at the edge, or a call in a lane from a caller that does
 * not name itself) is shared per lane, so such requests allocate no context.
 */
public final class SluiceContext {
  private static final ThreadLocal<SluiceContext> CURRENT = new ThreadLocal<>();
  // Non-null while a server hook owns the thread's context for one request (see enterServerScope).
  private static final ThreadLocal<Boolean> SERVER_SCOPE = new ThreadLocal<>();
  private static final String[] NO_HEADERS = new String[0];

  /** The lane of traffic that the entry rules left in the base: routed as untagged. */
  public static final String BASE_LANE = "base";

  private static final SluiceContext ENTERED_BASE =
      new SluiceContext(null, BASE_LANE, 0, null, null);

  // Contexts that carry only an origin, shared per origin (immutable values, so sharing is safe).
  private static final int MAX_SHARED_ORIGINS = 1024;
  private static final int MAX_SHARED_LANES = 64;
  private static final java.util.concurrent.ConcurrentHashMap<String, SluiceContext> BY_ORIGIN =
      new java.util.concurrent.ConcurrentHashMap<>();
  // Contexts that carry only a lane (in its x-sluice-lane form), shared per lane; capped like the
  // per-origin lanes, so a client sending made-up tags cannot fill memory (past the cap each such
  // request gets a context of its own, as before sharing).
  private static final java.util.concurrent.ConcurrentHashMap<String, SluiceContext> BY_LANE =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** The lane arrived as MSE's {@code x-mse-tag}. */
  static final int FORM_MSE = 1;

  /** The lane arrived as the {@code sluice-lane} member of W3C {@code baggage}. */
  static final int FORM_BAGGAGE = 2;

  private final String origin;
  private final String lane;
  private final int forms;
  private final String baggage;
  private final String entrance;
  // For a context shared per origin or per lane: its variants per entrance (CHAIN rules), so
  // serving a route for a governed caller (or in a lane) allocates nothing either; bounded by the
  // routes, capped all the same.
  private volatile java.util.concurrent.ConcurrentHashMap<String, SluiceContext> byEntrance;
  // For a context shared per origin: its variants per lane (arrived as x-sluice-lane alone, as
  // between governed applications), so a call in a lane from a governed caller allocates no context
  // (and builds its outbound headers once). Lanes are a handful; the cap keeps a client that sends
  // made-up tags with a made-up origin from filling memory (the origins are capped too).
  private volatile java.util.concurrent.ConcurrentHashMap<String, SluiceContext> byLane;
  // Outbound headers for this context (lane forms, then the sender's own), computed on first use
  // for a given set of own headers; racy but idempotent.
  private String[] outboundHeaders;

  private SluiceContext(String origin, String lane, int forms, String baggage, String entrance) {
    this.origin = origin;
    this.lane = lane;
    this.forms = forms;
    this.baggage = baggage;
    this.entrance = entrance;
  }

  /** A context with the given parts, or null when both are absent (nothing to govern by). */
  public static SluiceContext of(String origin, String lane) {
    if (isBlank(origin) && isBlank(lane)) {
      return null;
    }
    if (origin == null && BASE_LANE.equals(lane)) {
      return ENTERED_BASE;
    }
    if (isBlank(lane)) {
      return ofOrigin(origin);
    }
    return isBlank(origin) ? ofLane(lane) : ofOrigin(origin).withSharedLane(lane);
  }

  /**
   * The shared context of a request that carries only a lane, in its {@code x-sluice-lane} form.
   */
  private static SluiceContext ofLane(String lane) {
    return shared(BY_LANE, MAX_SHARED_LANES, lane, l -> new SluiceContext(null, l, 0, null, null));
  }

  /** The shared context of a request that carries only an origin. */
  private static SluiceContext ofOrigin(String origin) {
    return shared(
        BY_ORIGIN, MAX_SHARED_ORIGINS, origin, o -> new SluiceContext(o, null, 0, null, null));
  }

  /**
   * The context {@code registry} shares for {@code key}, made by {@code make} (a non-capturing
   * function: no allocation when the context is already shared); past {@code cap} entries a fresh
   * unshared one, so made-up keys cannot fill memory.
   */
  private static SluiceContext shared(
      java.util.concurrent.ConcurrentHashMap<String, SluiceContext> registry,
      int cap,
      String key,
      java.util.function.Function<String, SluiceContext> make) {
    SluiceContext shared = registry.get(key);
    if (shared != null) {
      return shared;
    }
    SluiceContext fresh = make.apply(key);
    if (registry.size() >= cap) {
      return fresh;
    }
    shared = registry.putIfAbsent(key, fresh);
    return shared == null ? fresh : shared;
  }

  /** The origins seen so far on requests that carried only an origin (up to a bound), for logs. */
  public static java.util.Set<String> sharedOrigins() {
    return java.util.Set.copyOf(BY_ORIGIN.keySet());
  }

  /**
   * This context with {@code entrance} as the inbound resource being served (CHAIN rules match it);
   * the same origin, lane and lane forms. Returns this context if the entrance is already it.
   */
  public SluiceContext withEntrance(String entrance) {
    if (java.util.Objects.equals(entrance, this.entrance)) {
      return this;
    }
    java.util.concurrent.ConcurrentHashMap<String, SluiceContext> variants = byEntrance;
    if (variants != null) {
      SluiceContext known = variants.get(entrance);
      if (known != null) {
        return known;
      }
    }
    SluiceContext routed = new SluiceContext(origin, lane, forms, baggage, entrance);
    if (this.entrance == null && isShared()) {
      if (variants == null) {
        variants = new java.util.concurrent.ConcurrentHashMap<>();
        byEntrance = variants;
      }
      if (variants.size() < MAX_SHARED_ORIGINS) {
        SluiceContext raced = variants.putIfAbsent(entrance, routed);
        return raced == null ? routed : raced;
      }
    }
    return routed;
  }

  /** Whether this is the one context shared per origin, or per lane, for requests alike. */
  private boolean isShared() {
    return lane == null
        ? origin != null && BY_ORIGIN.get(origin) == this
        : origin == null && forms == 0 && BY_LANE.get(lane) == this;
  }

  /**
   * This origin-only context with {@code lane} (in its {@code x-sluice-lane} form only), shared per
   * lane when this context is the origin's shared one.
   */
  private SluiceContext withSharedLane(String lane) {
    java.util.concurrent.ConcurrentHashMap<String, SluiceContext> variants = byLane;
    if (variants != null) {
      SluiceContext known = variants.get(lane);
      if (known != null) {
        return known;
      }
    }
    SluiceContext laned = new SluiceContext(origin, lane, 0, null, null);
    if (entrance == null && this.lane == null && BY_ORIGIN.get(origin) == this) {
      if (variants == null) {
        variants = new java.util.concurrent.ConcurrentHashMap<>();
        byLane = variants;
      }
      if (variants.size() < MAX_SHARED_LANES) {
        SluiceContext raced = variants.putIfAbsent(lane, laned);
        return raced == null ? laned : raced;
      }
    }
    return laned;
  }

  /** A context holding only an entrance, for a request that arrived without origin and lane. */
  public static SluiceContext ofEntrance(String entrance) {
    return entrance == null ? null : new SluiceContext(null, null, 0, null, entrance);
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
    if (lane == null && forms == 0) {
      return ofOrigin(origin);
    }
    if (forms == 0) {
      return isBlank(origin) ? ofLane(lane) : ofOrigin(origin).withSharedLane(lane);
    }
    return new SluiceContext(
        isBlank(origin) ? null : origin, lane, forms, fromBaggage == null ? null : baggage, null);
  }

  /**
   * The calling application named by an inbound request's headers: {@code x-sluice-origin}, else
   * Sentinel's {@code S-user}; null when neither is set.
   */
  public static String originOf(String sluiceOrigin, String sentinelOrigin) {
    if (!isBlank(sluiceOrigin)) {
      return sluiceOrigin;
    }
    return isBlank(sentinelOrigin) ? null : sentinelOrigin;
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
   * Makes {@code next} (possibly null) the thread's context and returns the one it replaces, for
   * advice that restores it with {@link #restore} when its unit of work ends. Allocates nothing.
   */
  public static SluiceContext replace(SluiceContext next) {
    return swap(next);
  }

  /** Makes {@code previous} (what {@link #replace} returned) the thread's context again. */
  public static void restore(SluiceContext previous) {
    swap(previous);
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
    SERVER_SCOPE.set(null);
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
    // set(null), never remove(): a removed entry is allocated again by the next set, on every
    // request; a thread keeps one entry for good, holding nothing when no context is current.
    CURRENT.set(next);
    return previous;
  }

  public String origin() {
    return origin;
  }

  public String lane() {
    return lane;
  }

  /** The inbound resource being served (a route), or null. */
  public String entrance() {
    return entrance;
  }

  /**
   * The headers an outbound request made in this context carries; see {@link
   * #outboundHeaders(String[])}.
   */
  public String[] outboundHeaders() {
    return outboundHeaders(NO_HEADERS);
  }

  /**
   * The headers an outbound request made in this context carries, as name, value pairs: the lane in
   * every form it arrived in, then {@code own} (the sending application's own headers, e.g. its
   * origin). Cached per context, so a request that makes many calls builds them once; without a
   * lane, {@code own} itself.
   */
  public String[] outboundHeaders(String[] own) {
    if (lane == null) {
      return own;
    }
    String[] headers = outboundHeaders;
    if (headers == null || !endsWith(headers, own)) {
      headers = headersFor(lane, forms, baggage, own);
      outboundHeaders = headers;
    }
    return headers;
  }

  private boolean endsWith(String[] headers, String[] own) {
    int offset = headers.length - own.length;
    if (offset != 2 * laneHeaderCount(forms)) {
      return false;
    }
    for (int i = 0; i < own.length; i++) {
      if (headers[offset + i] != own[i]) {
        return false;
      }
    }
    return true;
  }

  private static int laneHeaderCount(int forms) {
    return 1 + ((forms & FORM_MSE) != 0 ? 1 : 0) + ((forms & FORM_BAGGAGE) != 0 ? 1 : 0);
  }

  private static String[] headersFor(String lane, int forms, String baggage, String[] own) {
    int count = laneHeaderCount(forms);
    String[] headers = new String[2 * count + own.length];
    int i = 0;
    headers[i++] = Headers.LANE;
    headers[i++] = lane;
    if ((forms & FORM_MSE) != 0) {
      headers[i++] = Headers.MSE_LANE;
      headers[i++] = lane;
    }
    if ((forms & FORM_BAGGAGE) != 0) {
      headers[i++] = Headers.BAGGAGE;
      headers[i++] = baggage;
    }
    System.arraycopy(own, 0, headers, i, own.length);
    return headers;
  }

  private static boolean isBlank(String s) {
    return s == null || s.isEmpty();
  }

  @Override
  public String toString() {
    return "SluiceContext{origin=" + origin + ", lane=" + lane + ", entrance=" + entrance + '}';
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

    /**
     * The origin header of Sentinel's Spring web adapter examples ({@code
     * request.getHeader("S-user")}), accepted on the way in.
     */
    public static final String SENTINEL_ORIGIN = "S-user";

    private Headers() {}
  }
}
