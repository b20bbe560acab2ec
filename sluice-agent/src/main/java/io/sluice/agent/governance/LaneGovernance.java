package io.sluice.agent.governance;

import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.lanes.LaneRouter;
import io.sluice.agent.logging.AgentLog;
import io.sluice.flow.lane.InvalidLanesException;
import io.sluice.flow.lane.LaneDocument;
import io.sluice.flow.lane.Lanes;
import io.sluice.flow.lane.RequestReader;
import java.util.List;

/**
 * The lanes as the agent applies them: the lane document in force (replaced whole by the rule
 * watcher), the entry evaluation for each kind of inbound request, the lane routing of load
 * balancers (kept fresh on registry pushes), and this instance's own lane for its registry
 * metadata.
 *
 * <p>Concurrency: {@code lanes} is one volatile reference, read once per decision; the readers and
 * the router are thread-safe.
 */
public final class LaneGovernance {
  private final String instanceLane;
  private final AgentLog log;
  private final LaneRouter<Object> router = new LaneRouter<>(ServiceInstanceTags::tagOf);
  private final LaneRouter<Object> dubboRouter;
  private final DubboLaneSplits dubboSplits;
  // False only where DubboAdviceColdBenchmark sets it (by reflection) to time the pick the way it
  // went before the per-directory splits: through the split table keyed by the provider list.
  boolean splitsByDirectory = true;
  private final RequestReaders readers;
  private final LoadBalancerCaches loadBalancerCaches;
  private final java.util.concurrent.atomic.AtomicBoolean copyingDirectoryReported =
      new java.util.concurrent.atomic.AtomicBoolean();
  private volatile Lanes lanes = Lanes.NONE;

  /**
   * @param instanceLane this instance's lane from the agent's configuration, or null for base
   */
  public LaneGovernance(String instanceLane, AgentLog log) {
    this(instanceLane, new RequestReaders(), log);
  }

  LaneGovernance(String instanceLane, RequestReaders readers, AgentLog log) {
    this(instanceLane, readers, DubboInvokerTags::tagOf, log);
  }

  /**
   * @param dubboTags reads a Dubbo provider invoker's tag
   */
  LaneGovernance(
      String instanceLane,
      RequestReaders readers,
      LaneRouter.InstanceTags<Object> dubboTags,
      AgentLog log) {
    this.dubboRouter = new LaneRouter<>(dubboTags);
    this.dubboSplits = new DubboLaneSplits(dubboRouter);
    this.instanceLane = instanceLane;
    this.readers = readers;
    this.log = log;
    this.loadBalancerCaches = new LoadBalancerCaches(log);
  }

  RequestReaders readers() {
    return readers;
  }

  /** Replaces the lanes in force; an invalid document changes nothing. */
  public void apply(String document) throws InvalidLanesException {
    Lanes parsed = LaneDocument.parse(document);
    lanes = parsed;
    log.info("lanes in force: " + (parsed.lanes().isEmpty() ? "none" : parsed.toString()));
  }

  public Lanes lanes() {
    return lanes;
  }

  String instanceLane() {
    return instanceLane;
  }

  /** The entry tag of an untagged request; see {@link GovernanceHooks#entryLane}. */
  String entryLane(Object request, int kind) {
    Lanes current = lanes;
    if (!current.hasEntryRules() || request == null) {
      return null;
    }
    RequestReader<Object> reader = readers.reader(request, kind);
    if (reader == null) {
      return null;
    }
    String tag = current.entryTag(request, reader);
    return tag == null ? GovernanceHooks.BASE_LANE : tag;
  }

  /** The instances a call in the current context may go to. */
  @SuppressWarnings("unchecked")
  List<?> laneInstances(List<?> instances) {
    if (instances == null || instances.isEmpty()) {
      return instances;
    }
    return router.select((List<Object>) instances, routedTag());
  }

  /**
   * The Dubbo providers a call in the current context may go to, among those Dubbo's own routers
   * left ({@code routed}, a subset of the providers of the consumer's {@code directory}). The split
   * of the directory's providers by tag is made when they change and found from the directory
   * ({@link DubboLaneSplits}); a call returns {@code routed} itself when no provider has a tag, and
   * the split's list for its lane when Dubbo's routers kept every provider. Only when they narrowed
   * the list (its tag or condition routers, a disabled provider) is the lane's share of it
   * collected per call.
   */
  List<?> laneInvokers(List<?> routed, Object directory) {
    if (routed == null || routed.isEmpty()) {
      return routed;
    }
    LaneRouter.Partition<Object> split = splitsByDirectory ? dubboSplits.of(directory) : null;
    if (split == null) {
      return laneInvokersByList(routed, directory);
    }
    if (split.untouched()) {
      return routed;
    }
    return pick(routed, split, split.size(), routedTag());
  }

  /**
   * {@link #laneInvokers} for a directory whose providers {@link DubboLaneSplits} cannot read: the
   * list is read through {@link DubboDirectories} and its split looked up by its identity.
   */
  private List<?> laneInvokersByList(List<?> routed, Object directory) {
    List<?> all = DubboDirectories.providersOf(directory);
    if (all == null || all.isEmpty()) {
      return routed;
    }
    if (DubboDirectories.copies(directory) && copyingDirectoryReported.compareAndSet(false, true)) {
      log.info(
          "Dubbo directory "
              + directory.getClass().getName()
              + " hands out a copy of its providers on every call: their lane split is computed"
              + " per call");
    }
    return laneInvokersAmong(routed, all);
  }

  /** {@link #laneInvokers(List, Object)} with the directory's providers {@code all}. */
  @SuppressWarnings("unchecked")
  List<?> laneInvokersAmong(List<?> routed, List<?> all) {
    if (routed == null || routed.isEmpty() || all == null || all.isEmpty()) {
      return routed;
    }
    LaneRouter.Partition<Object> split = dubboRouter.partitionOf((List<Object>) all);
    if (split.untouched()) {
      return routed;
    }
    return pick(routed, split, all.size(), routedTag());
  }

  /**
   * The providers among {@code routed} a call tagged {@code tag} may go to, given the split of all
   * the directory's {@code providers} providers (some of which have a tag): the lane's, else the
   * base ones; an untagged call only ever the base ones.
   */
  private static List<?> pick(
      List<?> routed, LaneRouter.Partition<Object> split, int providers, String tag) {
    List<Object> selected = split.select(tag);
    if (routed.size() == providers) {
      return selected;
    }
    List<Object> narrowed = retained(selected, routed);
    if (narrowed.isEmpty() && tag != null) {
      narrowed = retained(split.base(), routed);
    }
    return narrowed;
  }

  private static List<Object> retained(List<Object> candidates, List<?> routed) {
    List<Object> kept = new java.util.ArrayList<>(candidates.size());
    for (Object candidate : candidates) {
      if (routed.contains(candidate)) {
        kept.add(candidate);
      }
    }
    return kept;
  }

  /** The current context's lane, or null when it routes as base. */
  private String routedTag() {
    SluiceContext context = SluiceContext.current();
    String tag = context == null ? null : context.lane();
    if (tag != null && (tag.equals(GovernanceHooks.BASE_LANE) || lanes.routesAsBase(tag))) {
      tag = null;
    }
    return tag;
  }

  /** See {@link GovernanceHooks#instanceCache}. */
  void instanceCache(Object cacheManager) {
    loadBalancerCaches.remember(cacheManager);
  }

  /** See {@link GovernanceHooks#registryChanged}. */
  void registryChanged(String service) {
    loadBalancerCaches.evict(service);
  }
}
