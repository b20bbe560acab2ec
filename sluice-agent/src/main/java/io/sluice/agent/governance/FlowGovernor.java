package io.sluice.agent.governance;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.lanes.InvalidLanesException;
import io.sluice.agent.logging.AgentLog;
import io.sluice.agent.rules.InvalidRulesException;
import io.sluice.agent.rules.RuleSink;
import io.sluice.agent.rules.RuleType;
import io.sluice.flow.Direction;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.Permit;
import io.sluice.flow.Resource;
import io.sluice.flow.RuleKind;
import java.net.URI;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The agent's governance: the hooks advice calls, backed by one sluice-flow {@link FlowRegistry},
 * and the sink the rule watcher delivers rule documents to. Inbound routes resolve to their
 * resource handle once ({@link RouteResources}); a call then costs sluice-flow's {@code
 * tryAcquire}/{@code release}, which allocate nothing and return at once for a resource without
 * rules. Outbound calls are only named (which allocates) while some rule names an outbound
 * resource; otherwise they return before doing anything.
 */
public final class FlowGovernor extends GovernanceHooks implements RuleSink {
  // An outbound resource name has a host after the method ("GET host/path"); inbound ones a '/'.
  private static final Pattern OUTBOUND_RESOURCE =
      Pattern.compile("\"resource\"\\s*:\\s*\"[A-Z]+ [^/\"\\s][^\"]*\"");

  private final FlowRegistry registry;
  private final RouteResources<Resource> routes;
  private final Map<RuleKind, BlockVerdict> verdicts;
  private final Map<RuleType, Boolean> outboundRulesByType = new EnumMap<>(RuleType.class);
  private final Consumer<String> applicationNameListener;
  private final LaneGovernance lanes;
  private final ConcurrentHashMap<String, Resource> gatewayRoutes = new ConcurrentHashMap<>();
  private final AgentLog log;
  private final AtomicBoolean overflowReported = new AtomicBoolean();
  private volatile boolean outboundRules;

  /**
   * @param verdicts how to answer a call refused by each kind of rule
   * @param applicationNameListener told Spring's application name once Spring knows it
   */
  public FlowGovernor(
      FlowRegistry registry,
      Map<RuleKind, BlockVerdict> verdicts,
      Consumer<String> applicationNameListener,
      AgentLog log) {
    this(registry, verdicts, applicationNameListener, new LaneGovernance(null, log), log);
  }

  /**
   * @param lanes the lanes in force and this instance's own lane
   */
  public FlowGovernor(
      FlowRegistry registry,
      Map<RuleKind, BlockVerdict> verdicts,
      Consumer<String> applicationNameListener,
      LaneGovernance lanes,
      AgentLog log) {
    this.registry = registry;
    this.lanes = lanes;
    this.verdicts = new EnumMap<>(verdicts);
    for (RuleKind kind : RuleKind.values()) {
      if (!this.verdicts.containsKey(kind)) {
        throw new IllegalArgumentException("no verdict for " + kind);
      }
    }
    this.applicationNameListener = applicationNameListener;
    this.log = log;
    this.routes =
        new RouteResources<>(
            name -> registry.resource(name, Direction.INBOUND),
            RouteResources.DEFAULT_MAX_ROUTES,
            () -> {
              if (overflowReported.compareAndSet(false, true)) {
                log.warn(
                    "more than "
                        + RouteResources.DEFAULT_MAX_ROUTES
                        + " routes; further routes are not governed");
              }
            });
  }

  /** The verdicts by default: 429 for limits, 503 for an open breaker, 403 for authority. */
  public static Map<RuleKind, BlockVerdict> verdicts(
      int flowStatus, int degradeStatus, int retryAfterSeconds) {
    String retryAfter = retryAfterSeconds > 0 ? Integer.toString(retryAfterSeconds) : null;
    Map<RuleKind, BlockVerdict> verdicts = new EnumMap<>(RuleKind.class);
    verdicts.put(RuleKind.FLOW, new BlockVerdict("flow", flowStatus, retryAfter));
    verdicts.put(RuleKind.PARAM_FLOW, new BlockVerdict("param-flow", flowStatus, retryAfter));
    verdicts.put(RuleKind.SYSTEM, new BlockVerdict("system", flowStatus, retryAfter));
    verdicts.put(RuleKind.DEGRADE, new BlockVerdict("degrade", degradeStatus, retryAfter));
    verdicts.put(RuleKind.AUTHORITY, new BlockVerdict("authority", 403, null));
    return verdicts;
  }

  @Override
  public Object inboundResource(String method, String route) {
    return routes.resolve(method, route);
  }

  @Override
  public boolean governsOutbound() {
    return outboundRules;
  }

  @Override
  public Object outboundResource(String method, URI uri, String uriTemplate) {
    if (!outboundRules) {
      return null;
    }
    return registry.resource(ClientResourceNames.of(method, uri, uriTemplate), Direction.OUTBOUND);
  }

  @Override
  public long acquire(Object resource) {
    Resource governed = (Resource) resource;
    SluiceContext context = SluiceContext.current();
    long permit = governed.tryAcquire(context == null ? null : context.origin());
    if (Permit.mustWait(permit)) {
      // A pacing rule scheduled this call; the threads calling here are the request's own.
      long waitNanos = governed.waitNanos(permit);
      if (waitNanos > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(waitNanos);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    return permit;
  }

  @Override
  public BlockVerdict refusal(Object resource, long permit) {
    RuleKind kind = Permit.blockedBy(permit);
    return kind == null ? null : verdicts.get(kind);
  }

  @Override
  public void release(Object resource, long permit, int status, Throwable error) {
    ((Resource) resource).release(permit, error != null || status >= 500);
  }

  @Override
  public String entryLane(Object request, int kind) {
    return lanes.entryLane(request, kind);
  }

  @Override
  public List<?> laneInstances(List<?> instances) {
    return lanes.laneInstances(instances);
  }

  @Override
  public String instanceLane() {
    return lanes.instanceLane();
  }

  @Override
  public void instanceCache(Object cacheManager) {
    lanes.instanceCache(cacheManager);
  }

  @Override
  public void registryChanged(String service) {
    lanes.registryChanged(service);
  }

  @Override
  public Object gatewayResource(Object route) {
    String id = GatewayRoutes.idOf(route);
    if (id == null) {
      return null;
    }
    Resource resource = gatewayRoutes.get(id);
    if (resource == null) {
      if (gatewayRoutes.size() >= RouteResources.DEFAULT_MAX_ROUTES) {
        return null;
      }
      resource = gatewayRoutes.computeIfAbsent(id, r -> registry.resource(r, Direction.INBOUND));
    }
    return resource;
  }

  @Override
  public int statusOf(Object response) {
    return GatewayRoutes.statusOf(response);
  }

  @Override
  public void springEnvironmentPrepared(String applicationName) {
    applicationNameListener.accept(applicationName);
  }

  @Override
  public void apply(RuleType type, String json) throws InvalidRulesException {
    if (type == RuleType.LANES) {
      try {
        lanes.apply(json);
      } catch (InvalidLanesException e) {
        throw new InvalidRulesException(e.getMessage(), e);
      }
      return;
    }
    String document = json == null || json.isBlank() ? "[]" : json;
    try {
      registry.load(kindOf(type), document);
    } catch (RuntimeException e) {
      throw new InvalidRulesException(e.getMessage(), e);
    }
    synchronized (outboundRulesByType) {
      outboundRulesByType.put(type, OUTBOUND_RESOURCE.matcher(document).find());
      outboundRules = outboundRulesByType.containsValue(true);
    }
    log.debug("loaded " + type + " rules; outbound rules present: " + outboundRules);
  }

  static RuleKind kindOf(RuleType type) {
    switch (type) {
      case FLOW:
        return RuleKind.FLOW;
      case DEGRADE:
        return RuleKind.DEGRADE;
      case PARAM_FLOW:
        return RuleKind.PARAM_FLOW;
      case SYSTEM:
        return RuleKind.SYSTEM;
      case AUTHORITY:
        return RuleKind.AUTHORITY;
      case LANES:
        throw new IllegalArgumentException("lanes are not a flow rule kind");
      default:
        throw new IllegalArgumentException("unknown rule type " + type);
    }
  }

  FlowRegistry registry() {
    return registry;
  }
}
