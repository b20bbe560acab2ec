package io.sluice.flow;

/**
 * A handle on one named resource, resolved once with {@link FlowRegistry#resource(String,
 * Direction)} and kept: per call only the handle is used. Thread-safe.
 *
 * <p>{@code tryAcquire} decides on a call and returns a {@code long} permit (see {@link Permit});
 * it never throws for a block, never sleeps and allocates nothing. Release every admitted permit
 * exactly once, from any thread; releasing a blocked or {@link Permit#UNGOVERNED} permit does
 * nothing. {@code enter} wraps the same for synchronous code in try-with-resources.
 *
 * <p>Arguments, all optional (null): {@code origin} is the calling application (matched by {@code
 * limitApp} of flow and authority rules), {@code entrance} is the entry resource the call came
 * through (matched by CHAIN flow rules), {@code param} is argument 0 for hot-parameter rules,
 * {@code args} gives all arguments for rules with another {@code paramIdx}, and a call with {@link
 * CallAttributes} answers rules that name a header, query parameter or cookie ({@link
 * ParamSource}).
 */
public final class Resource {

  private final String name;
  private final boolean inbound;
  private final FlowRegistry registry;
  private ResourceNode node;
  // False only while this handle's own node's guard governs nothing in its direction (kept by
  // ResourceNode.publish): then a call returns UNGOVERNED here, as the guard would. A handle on the
  // overflow resource keeps true (it must find its own node once a rule names it).
  volatile boolean governed = true;

  Resource(String name, ResourceNode node, boolean inbound, FlowRegistry registry) {
    this.name = name;
    this.node = node;
    this.inbound = inbound;
    this.registry = registry;
  }

  /** The resource name this handle was resolved for. */
  public String name() {
    return name;
  }

  /** Whether system rules protect this handle's calls. */
  public Direction direction() {
    return inbound ? Direction.INBOUND : Direction.OUTBOUND;
  }

  /**
   * Whether this handle shares the overflow resource because the registry was full when it was
   * resolved (and no rule has named it since).
   */
  public boolean isOverflow() {
    return node().overflow;
  }

  /** Decides on a call with no origin, entrance or parameter. */
  public long tryAcquire() {
    return acquire(null, null, null, null, null, null);
  }

  /** Decides on a call from {@code origin}. */
  public long tryAcquire(String origin) {
    return acquire(origin, null, null, null, null, null);
  }

  /** Decides on a call from {@code origin} with hot-parameter argument {@code param}. */
  public long tryAcquire(String origin, Object param) {
    return acquire(origin, null, param, null, null, null);
  }

  /** Decides on a call from {@code origin} that came through {@code entrance}. */
  public long tryAcquire(String origin, String entrance, Object param) {
    return acquire(origin, entrance, param, null, null, null);
  }

  /** Decides on a call whose arguments are {@code args} (for any {@code paramIdx}). */
  public long tryAcquireArgs(String origin, String entrance, Object[] args) {
    return acquire(origin, entrance, null, args, null, null);
  }

  /**
   * Decides on a call with everything a rule may look at: its arguments (for {@code paramIdx}) and
   * the call itself, whose attributes (header, query parameter, cookie) {@code attributes} reads
   * for rules with a {@code paramSource}. Both may be null: a rule then sees no value (and does not
   * limit). Allocation-free like the others.
   */
  public long tryAcquire(
      String origin, String entrance, Object[] args, CallAttributes attributes, Object call) {
    return acquire(origin, entrance, null, args, attributes, call);
  }

  /**
   * Every {@code tryAcquire} comes here: a handle whose resource nothing governs in its direction
   * answers {@link Permit#UNGOVERNED} without reading its node or guard (see {@link #governed}).
   */
  private long acquire(
      String origin,
      String entrance,
      Object param,
      Object[] args,
      CallAttributes attributes,
      Object call) {
    return governed
        ? node().acquire(registry, inbound, origin, entrance, param, args, attributes, call)
        : Permit.UNGOVERNED;
  }

  /**
   * Whether a hot-parameter rule of this resource reads an argument by index, so a caller that can
   * supply the arguments should (a caller that cannot leaves such rules without a value). One field
   * read; changes when rules are loaded.
   */
  public boolean needsArguments() {
    return node().guard.paramsByIndex;
  }

  /** Whether a hot-parameter rule of this resource reads a call attribute ({@link ParamSource}). */
  public boolean readsCallAttributes() {
    return node().guard.paramsBySource;
  }

  /** Releases a call that succeeded. */
  public void release(long permit) {
    release(permit, false);
  }

  /** Releases a call; {@code failed} counts it as an error for statistics and breakers. */
  public void release(long permit, boolean failed) {
    if (permit > 0) {
      node().release(registry, permit, failed);
    }
  }

  /** Releases a call; a non-null {@code error} counts it as an error. */
  public void release(long permit, Throwable error) {
    release(permit, error != null);
  }

  /**
   * For an admitted permit of a paced call ({@link Permit#mustWait}), the ns left until its
   * scheduled start; 0 when it may start now (or the permit was never paced).
   */
  public long waitNanos(long permit) {
    if (!Permit.mustWait(permit)) {
      return 0;
    }
    return Math.max(0, Permit.startNanos(permit) - registry.now());
  }

  /** A description of the rule that blocked {@code permit}, or null if it was admitted. */
  public String describeBlock(long permit) {
    return registry.describeBlock(permit);
  }

  /** Enters for synchronous code: see {@link #enter(String, String, Object)}. */
  public Entry enter() {
    return enter(null, null, null);
  }

  /** Enters for synchronous code: see {@link #enter(String, String, Object)}. */
  public Entry enter(String origin) {
    return enter(origin, null, null);
  }

  /** Enters for synchronous code: see {@link #enter(String, String, Object)}. */
  public Entry enter(String origin, Object param) {
    return enter(origin, null, param);
  }

  /**
   * Enters for synchronous code, waiting for a paced call's turn with the registry's {@link
   * Sleeper} (an interrupt cuts the wait short and stays set).
   *
   * @throws BlockedException whose subclass and message name the rule that blocked
   */
  public Entry enter(String origin, String entrance, Object param) {
    long permit = tryAcquire(origin, entrance, param);
    if (permit < 0) {
      throw BlockedException.of(Permit.blockedBy(permit), name, describeBlock(permit));
    }
    long wait = waitNanos(permit);
    while (wait > 0 && !Thread.currentThread().isInterrupted()) {
      registry.sleeper().sleep(wait);
      wait = waitNanos(permit);
    }
    return new Entry(this, permit);
  }

  /** A snapshot of this resource's statistics, or null if it records none (no rule applies). */
  public ResourceStatistics statistics() {
    return registry.statisticsOf(node());
  }

  private ResourceNode node() {
    ResourceNode n = node;
    if (n.overflow) {
      ResourceNode own = registry.existingNode(name);
      if (own != null) {
        node = own;
        return own;
      }
    }
    return n;
  }

  @Override
  public String toString() {
    return name + (inbound ? " (inbound)" : " (outbound)");
  }
}
