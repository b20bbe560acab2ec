package io.sluice.flow;

import io.sluice.flow.internal.rule.RuleSpec;
import io.sluice.flow.internal.stats.LiveStatistics;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The state of one resource: its compiled {@link Guard} (swapped whole on a rule change), its
 * statistics, its concurrency counter, and the admission state of its rules keyed by rule (so an
 * unchanged rule keeps its state across reloads).
 *
 * <p>Concurrency: {@code guard} is written under the registry's rule lock ({@link #publish}, which
 * then mirrors it into the handles' {@code governed} flags) and read by any caller; {@code
 * ruleStates} and {@code statistics} creation happen only under that lock; the counters are
 * atomics.
 */
final class ResourceNode {

  final String name;
  final boolean overflow;
  final AtomicLong concurrency = new AtomicLong();
  final Resource inboundHandle;
  final Resource outboundHandle;
  volatile Guard guard = Guard.UNGOVERNED;
  volatile LiveStatistics statistics;
  Map<RuleSpec, Object> ruleStates = new HashMap<>();

  ResourceNode(String name, boolean overflow, FlowRegistry registry) {
    this.name = name;
    this.overflow = overflow;
    this.inboundHandle = new Resource(name, this, true, registry);
    this.outboundHandle = new Resource(name, this, false, registry);
  }

  /**
   * Makes {@code g} this resource's guard, then tells its handles whether it governs their
   * direction, so a call on a resource that nothing governs returns at its handle without reading
   * this node or the guard (a cold call touches two objects fewer). Under the rule lock. A call
   * that reads the flag just before it changes decides as if it had come just before the reload.
   */
  void publish(Guard g) {
    guard = g;
    inboundHandle.governed = g.governedInbound;
    outboundHandle.governed = g.governedOutbound;
  }

  /** Creates the statistics on first need; under the rule lock. */
  LiveStatistics ensureStatistics() {
    LiveStatistics s = statistics;
    if (s == null) {
      s = new LiveStatistics(name);
      statistics = s;
    }
    return s;
  }

  long acquire(
      FlowRegistry registry,
      boolean inbound,
      String origin,
      String entrance,
      Object param,
      Object[] args,
      CallAttributes attributes,
      Object call) {
    Guard g = guard;
    if (!(inbound ? g.governedInbound : g.governedOutbound)) {
      return Permit.UNGOVERNED;
    }
    return g.acquire(
        this, registry.now(), inbound, origin, entrance, param, args, attributes, call);
  }

  void release(FlowRegistry registry, long permit, boolean failed) {
    long start = Permit.startNanos(permit);
    long end = -1;
    long rt = -1;
    if ((permit & Permit.TIMED) != 0) {
      end = registry.now();
      rt = Math.max(0, end - start);
    }
    if ((permit & Permit.CONCURRENCY) != 0) {
      concurrency.decrementAndGet();
    }
    if ((permit & Permit.SYSTEM) != 0) {
      registry.inbound().complete(rt, failed);
    }
    LiveStatistics s = statistics;
    if (s != null) {
      s.recordCompletion(rt, failed);
    }
    Guard g = guard;
    for (var breaker : g.breakers) {
      breaker.onComplete(start, end, failed);
    }
  }
}
