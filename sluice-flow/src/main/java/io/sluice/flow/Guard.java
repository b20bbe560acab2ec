package io.sluice.flow;

import io.sluice.flow.internal.breaker.CircuitBreaker;
import io.sluice.flow.internal.flow.FlowCheck;
import io.sluice.flow.internal.param.ParamValueLimiters;
import io.sluice.flow.internal.rule.AuthorityRuleSpec;
import io.sluice.flow.internal.stats.LiveStatistics;
import io.sluice.flow.internal.system.SystemGuard;
import java.util.Map;
import java.util.Set;

/**
 * Everything one resource checks per call, compiled from the rules when they (or the resource's
 * existence) change and published with one volatile write: flat arrays per rule kind, the flow
 * checks pre-selected per origin, the concurrency limit pre-merged. A call only looks up and
 * compares. Immutable; the admission state lives in the checks it points to, which a reload reuses
 * for unchanged rules.
 *
 * <p>Order of checks, cheapest and least consuming first: authority (stateless), circuit breakers
 * (a read when closed; a probe slot when half-open, given back if a later check blocks), system
 * (inbound only), concurrency (undone on a later block), hot parameters, flow. A QPS quota taken by
 * an earlier rule is not given back when a later rule blocks: the error is on the safe side.
 */
final class Guard {

  static final Guard UNGOVERNED =
      new Guard(
          false,
          false,
          null,
          new AuthorityCheck[0],
          new CircuitBreaker[0],
          new int[0],
          null,
          -1,
          0,
          new ParamCheck[0],
          new FlowCheck[0],
          Map.of(),
          new FlowCheck[0],
          false,
          false,
          false,
          false,
          false);

  private static final int MAX_TRACKED_PROBES = 63;

  final boolean governedOutbound;
  final boolean governedInbound;
  final LiveStatistics statistics;
  final AuthorityCheck[] authority;
  final CircuitBreaker[] breakers;
  final int[] breakerSerials;
  final SystemGuard system;
  final long concurrencyLimit;
  final int concurrencySerial;
  final ParamCheck[] params;
  final FlowCheck[] flowsForUnknownOrigin;
  final Map<String, FlowCheck[]> flowsForNamedOrigin;
  final FlowCheck[] flowsForOtherOrigin;
  final boolean originSensitive;
  final boolean timeEveryOutboundCall;
  final boolean timeEveryInboundCall;
  final boolean paramsByIndex;
  final boolean paramsBySource;

  Guard(
      boolean governedOutbound,
      boolean governedInbound,
      LiveStatistics statistics,
      AuthorityCheck[] authority,
      CircuitBreaker[] breakers,
      int[] breakerSerials,
      SystemGuard system,
      long concurrencyLimit,
      int concurrencySerial,
      ParamCheck[] params,
      FlowCheck[] flowsForUnknownOrigin,
      Map<String, FlowCheck[]> flowsForNamedOrigin,
      FlowCheck[] flowsForOtherOrigin,
      boolean originSensitive,
      boolean timeEveryOutboundCall,
      boolean timeEveryInboundCall,
      boolean paramsByIndex,
      boolean paramsBySource) {
    this.governedOutbound = governedOutbound;
    this.governedInbound = governedInbound;
    this.statistics = statistics;
    this.authority = authority;
    this.breakers = breakers;
    this.breakerSerials = breakerSerials;
    this.system = system;
    this.concurrencyLimit = concurrencyLimit;
    this.concurrencySerial = concurrencySerial;
    this.params = params;
    this.flowsForUnknownOrigin = flowsForUnknownOrigin;
    this.flowsForNamedOrigin = flowsForNamedOrigin;
    this.flowsForOtherOrigin = flowsForOtherOrigin;
    this.originSensitive = originSensitive;
    this.timeEveryOutboundCall = timeEveryOutboundCall;
    this.timeEveryInboundCall = timeEveryInboundCall;
    this.paramsByIndex = paramsByIndex;
    this.paramsBySource = paramsBySource;
  }

  /** Decides on one call; see the class doc for the order. Returns a permit. */
  long acquire(
      ResourceNode node,
      long now,
      boolean inbound,
      String origin,
      String entrance,
      Object param,
      Object[] args,
      CallAttributes attributes,
      Object call) {
    boolean knownOrigin = origin != null && !origin.isEmpty();
    if (authority.length != 0 && knownOrigin) {
      for (AuthorityCheck check : authority) {
        if (!check.allows(origin)) {
          return block(now, inbound, RuleKind.AUTHORITY, check.serial);
        }
      }
    }

    long probes = 0;
    for (int i = 0; i < breakers.length; i++) {
      int outcome = breakers[i].tryPass(now);
      if (outcome == CircuitBreaker.REJECTED) {
        cancelProbes(probes);
        return block(now, inbound, RuleKind.DEGRADE, breakerSerials[i]);
      }
      if (outcome == CircuitBreaker.PROBING) {
        probes |= 1L << Math.min(i, MAX_TRACKED_PROBES);
      }
    }

    long flags = 0;
    SystemGuard systemGuard = inbound ? system : null;
    if (systemGuard != null) {
      int outcome = systemGuard.tryEnter(now);
      if (outcome != SystemGuard.PASS) {
        cancelProbes(probes);
        return block(now, inbound, RuleKind.SYSTEM, outcome);
      }
      flags |= Permit.SYSTEM;
    }

    if (concurrencyLimit >= 0) {
      if (node.concurrency.incrementAndGet() > concurrencyLimit) {
        node.concurrency.decrementAndGet();
        undo(systemGuard, probes, false, node);
        return block(now, inbound, RuleKind.FLOW, concurrencySerial);
      }
      flags |= Permit.CONCURRENCY;
    }

    long wait = 0;
    for (ParamCheck check : params) {
      long w = check.limiters.tryAcquire(now, check.value(param, args, attributes, call));
      if (w < 0) {
        undo(systemGuard, probes, (flags & Permit.CONCURRENCY) != 0, node);
        return block(now, inbound, RuleKind.PARAM_FLOW, check.serial);
      }
      wait = Math.max(wait, w);
    }

    FlowCheck[] flows = flowsForUnknownOrigin;
    if (originSensitive && knownOrigin) {
      FlowCheck[] named = flowsForNamedOrigin.get(origin);
      flows = named != null ? named : flowsForOtherOrigin;
    }
    for (FlowCheck check : flows) {
      long w = check.tryAcquire(now, origin, entrance);
      if (w < 0) {
        undo(systemGuard, probes, (flags & Permit.CONCURRENCY) != 0, node);
        return block(now, inbound, RuleKind.FLOW, check.serial());
      }
      wait = Math.max(wait, w);
    }

    statistics.recordPass(now);
    if (systemGuard != null) {
      systemGuard.recordPass(now);
    }
    if ((inbound ? timeEveryInboundCall : timeEveryOutboundCall)
        || statistics.claimTimedSample(now)) {
      flags |= Permit.TIMED;
    }
    if (wait > 0) {
      flags |= Permit.WAIT;
    }
    return Permit.admitted(now + wait, flags);
  }

  private long block(long now, boolean inbound, RuleKind kind, int serial) {
    statistics.recordBlock(now);
    SystemGuard systemGuard = inbound ? system : null;
    if (systemGuard != null) {
      systemGuard.recordBlock(now);
    }
    return Permit.blocked(kind, serial);
  }

  private void undo(SystemGuard systemGuard, long probes, boolean concurrency, ResourceNode node) {
    if (concurrency) {
      node.concurrency.decrementAndGet();
    }
    if (systemGuard != null) {
      systemGuard.undoEnter();
    }
    cancelProbes(probes);
  }

  private void cancelProbes(long probes) {
    for (int i = 0; probes != 0 && i < breakers.length; i++) {
      if ((probes & (1L << Math.min(i, MAX_TRACKED_PROBES))) != 0) {
        breakers[i].cancelProbe();
      }
    }
  }

  /** An authority rule, pre-digested. */
  static final class AuthorityCheck {
    final AuthorityRuleSpec rule;
    final int serial;
    private final Set<String> origins;
    private final boolean whiteList;

    AuthorityCheck(AuthorityRuleSpec rule, int serial) {
      this.rule = rule;
      this.serial = serial;
      this.origins = rule.origins();
      this.whiteList = rule.whiteList();
    }

    /** Whether a known (non-empty) origin may call; Sentinel lets an unknown origin through. */
    boolean allows(String origin) {
      return origins.contains(origin) == whiteList;
    }
  }

  /** A hot-parameter rule: which argument (or call attribute), and the per-value limiters. */
  static final class ParamCheck {
    final ParamValueLimiters limiters;
    final int serial;
    private final int paramIdx;
    private final ParamSource source;

    ParamCheck(ParamValueLimiters limiters, int serial) {
      this.limiters = limiters;
      this.serial = serial;
      this.paramIdx = limiters.rule().paramIdx();
      this.source = limiters.rule().source();
    }

    boolean bySource() {
      return source != null;
    }

    /**
     * The value the rule limits: the call attribute it names, read through {@code attributes}
     * (absent without a reader), else the argument it names.
     */
    Object value(Object param, Object[] args, CallAttributes attributes, Object call) {
      if (source != null) {
        return attributes == null ? null : attributes.read(call, source);
      }
      return argument(param, args);
    }

    /**
     * The argument the rule looks at: from {@code args} if given (negative indexes count from the
     * end, as in Sentinel), else the single {@code param} for index 0 or -1.
     */
    Object argument(Object param, Object[] args) {
      if (args != null) {
        int index = paramIdx < 0 ? args.length + paramIdx : paramIdx;
        return index >= 0 && index < args.length ? args[index] : null;
      }
      return paramIdx == 0 || paramIdx == -1 ? param : null;
    }
  }
}
