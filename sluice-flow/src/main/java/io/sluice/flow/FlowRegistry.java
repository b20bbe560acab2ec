package io.sluice.flow;

import io.sluice.flow.Guard.AuthorityCheck;
import io.sluice.flow.Guard.ParamCheck;
import io.sluice.flow.internal.breaker.CircuitBreaker;
import io.sluice.flow.internal.flow.FlowCheck;
import io.sluice.flow.internal.flow.FlowChecks;
import io.sluice.flow.internal.param.ParamValueLimiters;
import io.sluice.flow.internal.rule.AuthorityRuleSpec;
import io.sluice.flow.internal.rule.DegradeRuleSpec;
import io.sluice.flow.internal.rule.FlowRuleSpec;
import io.sluice.flow.internal.rule.OriginScope;
import io.sluice.flow.internal.rule.ParamFlowRuleSpec;
import io.sluice.flow.internal.rule.RuleSpec;
import io.sluice.flow.internal.stats.LatencyHistogram;
import io.sluice.flow.internal.stats.LiveStatistics;
import io.sluice.flow.internal.system.InboundTraffic;
import io.sluice.flow.internal.system.SystemGuard;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The root of flow control for one application: resolves resource names to {@link Resource}
 * handles, holds the rules of each {@link RuleKind} as a versioned snapshot, and owns all state. An
 * instance, not a static manager; it starts no thread. Build one with {@link #builder()}.
 *
 * <p><b>Rules.</b> {@link #load(RuleKind, String)} replaces one kind's rules as a whole. An invalid
 * document is rejected with {@link InvalidRuleDocumentException} and the previous rules stay. A
 * rule whose fields are unchanged keeps its state (limiter, pacing, warm-up, breaker). When {@code
 * load} returns, every resource's compiled guard has been swapped, so the next call sees the new
 * rules. Loads and resolutions of new names are serialised by one lock; calls never take it.
 *
 * <p><b>Cardinality.</b> At most {@code maxResources} names get their own state; a name some rule
 * mentions always does. Past the cap, a name gets a handle on the shared overflow resource {@link
 * #OVERFLOW_RESOURCE}, whose own rules protect all overflowed names together; each such resolution
 * is counted ({@link #overflowedResolutions()}) and reported to the {@link OverflowListener}. A
 * rule loaded later for such a name takes effect on its existing handles.
 */
public final class FlowRegistry {

  /** The resource shared by names resolved past {@code maxResources}; give it rules by name. */
  public static final String OVERFLOW_RESOURCE = "sluice:overflow";

  public static final int DEFAULT_MAX_RESOURCES = 10_000;
  public static final int DEFAULT_MAX_ORIGINS_PER_RULE = 1_000;
  public static final int DEFAULT_MAX_PARAM_VALUES_PER_RULE = 10_000;

  private final Ticker ticker;
  private final long origin;
  private final Ticker relativeClock = this::now;
  private final Sleeper sleeper;
  private final Executor executor;
  private final SystemLoadSource loadSource;
  private final int maxResources;
  private final int maxOriginsPerRule;
  private final int maxParamValuesPerRule;
  private final boolean statisticsForAllResources;
  private final BreakerListener breakerListener;
  private final OverflowListener overflowListener;

  private final ConcurrentHashMap<String, ResourceNode> nodes = new ConcurrentHashMap<>();
  private final ResourceNode overflowNode;
  private final AtomicLong overflowedResolutions = new AtomicLong();
  private final AtomicLong overflowedOrigins = new AtomicLong();
  private final AtomicLong overflowedParamValues = new AtomicLong();
  private final InboundTraffic inbound = new InboundTraffic();

  private final Object rulesLock = new Object();
  private RuleIndex rules = RuleIndex.EMPTY;
  private final Map<RuleKind, RulesVersion> versions = new EnumMap<>(RuleKind.class);
  private final Map<RuleSpec, Integer> serials = new HashMap<>();
  private int nextSerial = 1;
  private volatile Map<Integer, RuleSpec> rulesBySerial = Map.of();
  private volatile SystemGuard system;

  private FlowRegistry(Builder b) {
    this.ticker = b.ticker;
    this.origin = b.ticker.read();
    this.sleeper = b.sleeper;
    this.executor = b.executor;
    this.loadSource = b.systemLoadSource;
    this.maxResources = b.maxResources;
    this.maxOriginsPerRule = b.maxOriginsPerRule;
    this.maxParamValuesPerRule = b.maxParamValuesPerRule;
    this.statisticsForAllResources = b.statisticsForAllResources;
    this.breakerListener = b.breakerListener;
    this.overflowListener = b.overflowListener;
    for (RuleKind kind : RuleKind.values()) {
      versions.put(kind, new RulesVersion(kind, 0, RuleDocument.parse(kind, "").etag(), 0));
    }
    this.overflowNode = new ResourceNode(OVERFLOW_RESOURCE, true, this);
    synchronized (rulesLock) {
      nodes.put(OVERFLOW_RESOURCE, overflowNode);
      compileLater(overflowNode).run();
    }
  }

  /** A builder with the defaults: system clock, parking sleeper, no executor. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The handle for an outbound (or internal) resource; see {@link #resource(String, Direction)}.
   */
  public Resource resource(String name) {
    return resource(name, Direction.OUTBOUND);
  }

  /**
   * The handle for {@code name}. Resolve once and keep it; resolving again returns the same handle
   * (except for overflowed names, which get a fresh handle on the overflow resource).
   */
  public Resource resource(String name, Direction direction) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("a resource needs a name");
    }
    boolean inbound = direction == Direction.INBOUND;
    ResourceNode node = nodes.get(name);
    if (node == null) {
      synchronized (rulesLock) {
        node = nodes.get(name);
        if (node == null) {
          if (nodes.size() >= maxResources && !rules.mentions(name)) {
            long count = overflowedResolutions.incrementAndGet();
            notifyOverflow(name, count);
            return new Resource(name, overflowNode, inbound, this);
          }
          node = createNode(name);
        }
      }
    }
    return inbound ? node.inboundHandle : node.outboundHandle;
  }

  /**
   * Replaces the rules of {@code kind} with a Sentinel JSON array (blank = none).
   *
   * @return the version now in force (unchanged if the content was the same)
   * @throws InvalidRuleDocumentException if the document is invalid; the old rules stay
   */
  public RulesVersion load(RuleKind kind, String json) {
    return load(RuleDocument.parse(kind, json));
  }

  /** Replaces the rules of the document's kind; see {@link #load(RuleKind, String)}. */
  public RulesVersion load(RuleDocument document) {
    RuleKind kind = document.kind();
    synchronized (rulesLock) {
      RulesVersion current = versions.get(kind);
      if (current.etag().equals(document.etag())) {
        return current;
      }
      RuleIndex previousRules = rules;
      Map<RuleSpec, Integer> previousSerials = new HashMap<>(serials);
      Map<Integer, RuleSpec> previousBySerial = rulesBySerial;
      SystemGuard previousSystem = system;
      List<Runnable> publications = new ArrayList<>();
      try {
        rules = rules.with(kind, document.specs());
        renumber();
        if (kind == RuleKind.SYSTEM) {
          system = SystemGuard.of(rules.systemRules(), system, inbound, loadSource, executor);
        }
        // Every name a rule mentions gets state, whatever the cap; all exist before any
        // compiles, since a RELATE rule's guard points at the related resource's statistics.
        for (String name : rules.namedResources()) {
          ResourceNode node = nodes.computeIfAbsent(name, n -> new ResourceNode(n, false, this));
          if (rules.isRelated(name)) {
            node.ensureStatistics();
          }
        }
        // Compile every guard first and publish only when all compiled, so a failure cannot
        // leave some resources on the new rules and others on the old.
        for (ResourceNode node : nodes.values()) {
          publications.add(compileLater(node));
        }
      } catch (RuntimeException e) {
        rules = previousRules;
        serials.clear();
        serials.putAll(previousSerials);
        rulesBySerial = previousBySerial;
        system = previousSystem;
        throw new IllegalStateException(kind + " rules could not be compiled; kept the old", e);
      }
      for (Runnable publication : publications) {
        publication.run();
      }
      RulesVersion next =
          new RulesVersion(kind, current.version() + 1, document.etag(), document.size());
      versions.put(kind, next);
      return next;
    }
  }

  /** The version of the rules of {@code kind} in force. */
  public RulesVersion rulesVersion(RuleKind kind) {
    synchronized (rulesLock) {
      return versions.get(kind);
    }
  }

  /** Descriptions of the rules of {@code kind} in force. */
  public List<String> describeRules(RuleKind kind) {
    synchronized (rulesLock) {
      List<String> out = new ArrayList<>();
      for (RuleSpec spec : rules.rules(kind)) {
        out.add(spec.describe());
      }
      return out;
    }
  }

  /** The state of the breaker of each degrade rule of {@code resource}, keyed by rule. */
  public Map<String, BreakerState> breakerStates(String resource) {
    ResourceNode node = nodes.get(resource);
    Map<String, BreakerState> out = new LinkedHashMap<>();
    if (node != null) {
      for (CircuitBreaker breaker : node.guard.breakers) {
        out.put(breaker.rule().describe(), breaker.state());
      }
    }
    return out;
  }

  /** Snapshots of every resource that records statistics. */
  public List<ResourceStatistics> statistics() {
    List<ResourceStatistics> out = new ArrayList<>();
    for (ResourceNode node : nodes.values()) {
      ResourceStatistics s = statisticsOf(node);
      if (s != null) {
        out.add(s);
      }
    }
    return out;
  }

  /**
   * Hands {@code reader} every complete second after {@code afterSecond} that the statistics still
   * hold (the last {@value LiveStatistics#SECONDS_READABLE}), oldest first: {@link
   * SecondsReader#beginSecond} once per second if any resource records statistics, then {@link
   * SecondsReader#resource} for each resource with calls counted or in flight in it. Returns the
   * last complete second, to pass back as {@code afterSecond} next time. Seconds are counted on the
   * registry's clock ({@link #clockNanos()} / 1 s).
   *
   * <p>For a reader once a second (the agent's traffic reports), where the code never gets hot:
   * allocates nothing per resource, a resource with no call since the seconds asked for costs two
   * field reads, and the full snapshot's minute and totals are not computed. For one reader thread
   * at a time; it never stops the callers.
   */
  public long readSeconds(long afterSecond, SecondsReader reader) {
    long now = now();
    long last = now / 1_000_000_000L - 1;
    long first = Math.max(afterSecond + 1, last + 1 - LiveStatistics.SECONDS_READABLE);
    long[] fields = new long[LiveStatistics.READ_FIELDS];
    long[] scratch = new long[LatencyHistogram.BUCKETS];
    SecondCounts counts = new SecondCounts();
    for (long second = first; second <= last; second++) {
      boolean begun = false;
      for (ResourceNode node : nodes.values()) {
        LiveStatistics s = node.statistics;
        if (s == null) {
          continue;
        }
        if (!begun) {
          reader.beginSecond(second);
          begun = true;
        }
        if (s.readSecond(second, now, fields, scratch)) {
          reader.resource(counts.fill(node.name, second, fields));
        }
      }
    }
    return last;
  }

  /** The registry's clock: ns since it was built. */
  public long clockNanos() {
    return now();
  }

  /** A snapshot of all inbound traffic counted by system rules. */
  public ResourceStatistics inboundStatistics() {
    return inbound.statistics().snapshot(now(), inbound.concurrency());
  }

  /** The share of inbound calls system rules currently admit for CPU and RT (1 = all). */
  public double systemAdmissionRatio() {
    SystemGuard guard = system;
    return guard == null ? 1 : guard.admissionRatio();
  }

  /** How many resolutions went to the overflow resource. */
  public long overflowedResolutions() {
    return overflowedResolutions.get();
  }

  /** How many calls from origins past {@code maxOriginsPerRule} used a shared limiter. */
  public long overflowedOrigins() {
    return overflowedOrigins.get();
  }

  /** How many calls with parameter values past {@code maxParamValuesPerRule} used a shared one. */
  public long overflowedParamValues() {
    return overflowedParamValues.get();
  }

  /** How many resources have their own state (the overflow resource included). */
  public int resourceCount() {
    return nodes.size();
  }

  // ---- package-private plumbing for Resource and ResourceNode ----

  /**
   * Ns since the registry was built; never negative, so a custom ticker that steps back before the
   * origin cannot corrupt the limiters' packed times (it only makes time stand still).
   */
  long now() {
    return Math.max(0, ticker.read() - origin);
  }

  Sleeper sleeper() {
    return sleeper;
  }

  InboundTraffic inbound() {
    return inbound;
  }

  ResourceNode existingNode(String name) {
    ResourceNode node = nodes.get(name);
    return node == null || node == overflowNode ? null : node;
  }

  ResourceStatistics statisticsOf(ResourceNode node) {
    LiveStatistics s = node.statistics;
    return s == null ? null : s.snapshot(now(), s.inFlight());
  }

  String describeBlock(long permit) {
    RuleKind kind = Permit.blockedBy(permit);
    if (kind == null) {
      return null;
    }
    int serial = Permit.blockingRuleSerial(permit);
    if (kind == RuleKind.SYSTEM) {
      SystemGuard guard = system;
      return guard == null ? "system rule (since removed)" : guard.describe(serial);
    }
    RuleSpec spec = rulesBySerial.get(serial);
    return spec == null ? kind + " rule #" + serial + " (since replaced)" : spec.describe();
  }

  private ResourceNode createNode(String name) {
    ResourceNode node = new ResourceNode(name, false, this);
    compileLater(node).run();
    nodes.put(name, node);
    return node;
  }

  private void notifyOverflow(String name, long count) {
    if (overflowListener != null) {
      try {
        overflowListener.onResourceOverflow(name, count);
      } catch (RuntimeException ignored) {
        // A listener must not break resolution.
      }
    }
  }

  /** Gives every loaded rule a serial number, keeping the numbers of rules that stay. */
  private void renumber() {
    Map<RuleSpec, Integer> kept = new HashMap<>();
    for (RuleSpec spec : rules.all()) {
      Integer serial = serials.get(spec);
      kept.put(spec, serial != null ? serial : nextSerial++);
    }
    serials.clear();
    serials.putAll(kept);
    Map<Integer, RuleSpec> bySerial = new HashMap<>();
    for (Map.Entry<RuleSpec, Integer> e : kept.entrySet()) {
      bySerial.put(e.getValue(), e.getKey());
    }
    rulesBySerial = Map.copyOf(bySerial);
  }

  /**
   * Builds {@code node}'s guard from the current rules, under the rule lock, and returns the step
   * that publishes it (and the rule states it keeps). Nothing is published before that runs.
   */
  private Runnable compileLater(ResourceNode node) {
    String name = node.name;
    List<FlowRuleSpec> flowRules = rules.flowsFor(name);
    List<DegradeRuleSpec> degradeRules = rules.degradesFor(name);
    List<ParamFlowRuleSpec> paramRules = rules.paramsFor(name);
    List<AuthorityRuleSpec> authorityRules = rules.authoritiesFor(name);
    boolean hasRules =
        !flowRules.isEmpty()
            || !degradeRules.isEmpty()
            || !paramRules.isEmpty()
            || !authorityRules.isEmpty();
    SystemGuard systemGuard = system;
    // The overflow resource always records statistics, so traffic on overflowed names shows.
    boolean governedOutbound =
        hasRules || rules.isRelated(name) || statisticsForAllResources || node.overflow;
    boolean governedInbound = governedOutbound || systemGuard != null;
    if (!governedInbound) {
      return () -> {
        node.ruleStates = new HashMap<>();
        node.publish(Guard.UNGOVERNED);
      };
    }
    LiveStatistics statistics = node.ensureStatistics();
    Map<RuleSpec, Object> previous = node.ruleStates;
    Map<RuleSpec, Object> states = new HashMap<>();

    AuthorityCheck[] authority = new AuthorityCheck[authorityRules.size()];
    for (int i = 0; i < authority.length; i++) {
      authority[i] = new AuthorityCheck(authorityRules.get(i), serials.get(authorityRules.get(i)));
    }

    CircuitBreaker[] breakers = new CircuitBreaker[degradeRules.size()];
    int[] breakerSerials = new int[breakers.length];
    for (int i = 0; i < breakers.length; i++) {
      DegradeRuleSpec spec = degradeRules.get(i);
      CircuitBreaker breaker =
          previous.get(spec) instanceof CircuitBreaker kept
              ? kept
              : new CircuitBreaker(name, spec, breakerListener, relativeClock);
      states.put(spec, breaker);
      breakers[i] = breaker;
      breakerSerials[i] = serials.get(spec);
    }

    ParamCheck[] params = new ParamCheck[paramRules.size()];
    boolean paramsByIndex = false;
    boolean paramsBySource = false;
    for (int i = 0; i < params.length; i++) {
      ParamFlowRuleSpec spec = paramRules.get(i);
      ParamValueLimiters limiters =
          previous.get(spec) instanceof ParamValueLimiters kept
              ? kept
              : new ParamValueLimiters(spec, maxParamValuesPerRule, overflowedParamValues);
      states.put(spec, limiters);
      params[i] = new ParamCheck(limiters, serials.get(spec));
      paramsBySource |= params[i].bySource();
      paramsByIndex |= !params[i].bySource();
    }

    long concurrencyLimit = -1;
    int concurrencySerial = 0;
    List<FlowCheck> forAll = new ArrayList<>();
    List<FlowCheck> forOther = new ArrayList<>();
    Map<String, List<FlowCheck>> forNamed = new LinkedHashMap<>();
    for (FlowRuleSpec spec : flowRules) {
      int serial = serials.get(spec);
      if (spec.grade() == FlowRuleSpec.GRADE_THREAD
          && spec.strategy() != FlowRuleSpec.STRATEGY_RELATE) {
        long limit = (long) Math.floor(spec.count());
        if (concurrencyLimit < 0 || limit < concurrencyLimit) {
          concurrencyLimit = limit;
          concurrencySerial = serial;
        }
        continue;
      }
      OriginScope scope = spec.origins();
      if (spec.strategy() == FlowRuleSpec.STRATEGY_RELATE) {
        ResourceNode related = nodes.get(spec.refResource());
        FlowCheck check = FlowChecks.relate(spec, serial, related.ensureStatistics());
        place(check, scope, forAll, forOther, forNamed);
        continue;
      }
      switch (scope.kind()) {
        case DEFAULT -> {
          FlowCheck check =
              previous.get(spec) instanceof FlowCheck kept
                  ? kept
                  : FlowChecks.limiter(spec, serial);
          states.put(spec, check);
          forAll.add(check);
        }
        case OTHER -> {
          FlowCheck check =
              previous.get(spec) instanceof FlowCheck kept
                  ? kept
                  : FlowChecks.perOrigin(spec, serial, maxOriginsPerRule, overflowedOrigins);
          states.put(spec, check);
          forOther.add(check);
        }
        case NAMED -> {
          @SuppressWarnings("unchecked")
          Map<String, FlowCheck> perOrigin =
              previous.get(spec) instanceof Map<?, ?> kept
                  ? (Map<String, FlowCheck>) kept
                  : newPerNamedOrigin(spec, serial);
          states.put(spec, perOrigin);
          for (Map.Entry<String, FlowCheck> e : perOrigin.entrySet()) {
            forNamed.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue());
          }
        }
      }
    }
    FlowCheck[] unknownOrigin = forAll.toArray(new FlowCheck[0]);
    Map<String, FlowCheck[]> namedOrigin = new HashMap<>();
    for (Map.Entry<String, List<FlowCheck>> e : forNamed.entrySet()) {
      List<FlowCheck> checks = new ArrayList<>(e.getValue());
      checks.addAll(forAll);
      namedOrigin.put(e.getKey(), checks.toArray(new FlowCheck[0]));
    }
    List<FlowCheck> other = new ArrayList<>(forOther);
    other.addAll(forAll);

    boolean timeEveryCall = false;
    for (CircuitBreaker breaker : breakers) {
      timeEveryCall |= breaker.needsResponseTimes();
    }
    boolean timeEveryInboundCall =
        timeEveryCall || (systemGuard != null && systemGuard.needsResponseTimes());

    Guard guard =
        new Guard(
            governedOutbound,
            governedInbound,
            statistics,
            authority,
            breakers,
            breakerSerials,
            systemGuard,
            concurrencyLimit,
            concurrencySerial,
            params,
            unknownOrigin,
            Map.copyOf(namedOrigin),
            other.toArray(new FlowCheck[0]),
            !forNamed.isEmpty() || !forOther.isEmpty(),
            timeEveryCall,
            timeEveryInboundCall,
            paramsByIndex,
            paramsBySource);
    return () -> {
      node.ruleStates = states;
      node.publish(guard);
    };
  }

  private static void place(
      FlowCheck check,
      OriginScope scope,
      List<FlowCheck> forAll,
      List<FlowCheck> forOther,
      Map<String, List<FlowCheck>> forNamed) {
    switch (scope.kind()) {
      case DEFAULT -> forAll.add(check);
      case OTHER -> forOther.add(check);
      case NAMED -> {
        for (String name : scope.names()) {
          forNamed.computeIfAbsent(name, k -> new ArrayList<>()).add(check);
        }
      }
    }
  }

  private static Map<String, FlowCheck> newPerNamedOrigin(FlowRuleSpec spec, int serial) {
    Map<String, FlowCheck> perOrigin = new HashMap<>();
    for (String name : spec.origins().names()) {
      perOrigin.put(name, FlowChecks.limiter(spec, serial));
    }
    return Map.copyOf(perOrigin);
  }

  /** Configuration of a {@link FlowRegistry}; every setter validates its argument. */
  public static final class Builder {
    private Ticker ticker = Ticker.system();
    private Sleeper sleeper = Sleeper.parking();
    private Executor executor;
    private SystemLoadSource systemLoadSource;
    private int maxResources = DEFAULT_MAX_RESOURCES;
    private int maxOriginsPerRule = DEFAULT_MAX_ORIGINS_PER_RULE;
    private int maxParamValuesPerRule = DEFAULT_MAX_PARAM_VALUES_PER_RULE;
    private boolean statisticsForAllResources;
    private BreakerListener breakerListener;
    private OverflowListener overflowListener;

    private Builder() {}

    /** The clock read once per entry and once per exit (default {@link Ticker#system()}). */
    public Builder ticker(Ticker ticker) {
      this.ticker = require(ticker, "ticker");
      return this;
    }

    /** How {@link Resource#enter()} waits for a paced call's turn. */
    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = require(sleeper, "sleeper");
      return this;
    }

    /** Runs background work (system sampling); without one it runs on the calling thread. */
    public Builder executor(Executor executor) {
      this.executor = require(executor, "executor");
      return this;
    }

    /** Where system rules read CPU usage and load (default: the operating system, lazily). */
    public Builder systemLoadSource(SystemLoadSource source) {
      this.systemLoadSource = require(source, "systemLoadSource");
      return this;
    }

    /** Names with their own state before the overflow resource is used; at least 1. */
    public Builder maxResources(int max) {
      this.maxResources = atLeastOne(max, "maxResources");
      return this;
    }

    /** Origins with their own limiter per {@code limitApp: "other"} rule; at least 1. */
    public Builder maxOriginsPerRule(int max) {
      this.maxOriginsPerRule = atLeastOne(max, "maxOriginsPerRule");
      return this;
    }

    /** Parameter values with their own limiter per hot-parameter rule; at least 1. */
    public Builder maxParamValuesPerRule(int max) {
      this.maxParamValuesPerRule = atLeastOne(max, "maxParamValuesPerRule");
      return this;
    }

    /**
     * Whether resources no rule applies to record statistics too (default false: such a resource
     * costs one field read per call and shows no statistics).
     */
    public Builder statisticsForAllResources(boolean all) {
      this.statisticsForAllResources = all;
      return this;
    }

    /** Told about every circuit breaker state change. */
    public Builder breakerListener(BreakerListener listener) {
      this.breakerListener = require(listener, "breakerListener");
      return this;
    }

    /** Told about every resolution that went to the overflow resource. */
    public Builder overflowListener(OverflowListener listener) {
      this.overflowListener = require(listener, "overflowListener");
      return this;
    }

    public FlowRegistry build() {
      if (systemLoadSource == null) {
        systemLoadSource = SystemLoadSource.operatingSystem();
      }
      return new FlowRegistry(this);
    }

    private static <T> T require(T value, String what) {
      if (value == null) {
        throw new IllegalArgumentException(what + " must not be null");
      }
      return value;
    }

    private static int atLeastOne(int value, String what) {
      if (value < 1) {
        throw new IllegalArgumentException(what + " must be at least 1, got " + value);
      }
      return value;
    }
  }
}
