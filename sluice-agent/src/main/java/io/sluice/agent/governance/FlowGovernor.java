package io.sluice.agent.governance;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.OutboundCall;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.logging.AgentLog;
import io.sluice.agent.rules.InvalidRulesException;
import io.sluice.agent.rules.RuleSink;
import io.sluice.agent.rules.RuleType;
import io.sluice.flow.CallAttributes;
import io.sluice.flow.Direction;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.InvalidRuleDocumentException;
import io.sluice.flow.Permit;
import io.sluice.flow.Resource;
import io.sluice.flow.RuleDocument;
import io.sluice.flow.RuleInfo;
import io.sluice.flow.RuleKind;
import io.sluice.flow.lane.InvalidLanesException;
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
 * and the sink the rule watcher delivers documents to. Transport-neutral: a route, a gateway route,
 * an HTTP client call (or, later, an RPC method) is a {@link GovernedResource} resolved once per
 * name and path; a call then costs sluice-flow's {@code tryAcquire}/{@code release} with the origin
 * and entrance of the current {@link SluiceContext}, and with the call's arguments or request only
 * for resources whose hot-parameter rules read them. Nothing here allocates on the admitted path.
 *
 * <p>Outbound calls are only named (which allocates) while some rule names an outbound resource;
 * otherwise they return before doing anything. A call that went through a load balancer is named by
 * the logical service ({@code GET orders/items/{id}}), whichever instance it reaches.
 *
 * <p>Concurrency: resolution tables are concurrent maps (a race creates equal handles, one wins),
 * and gateway routes are remembered per route object in {@link GatewayRouteSlots}, a provider's
 * methods per parameter-types array in {@link RpcMethodSlots}, whose slots hold immutable entries
 * published with release stores; everything the documents change is published through volatile
 * fields read once per call.
 */
public final class FlowGovernor extends GovernanceHooks implements RuleSink {
  // An outbound resource name has a host after the method ("GET host/path"); inbound ones a '/'.
  private static final Pattern OUTBOUND_NAME = Pattern.compile("[A-Z]+ [^/\\s].*");
  private static final String[] NO_HEADERS = new String[0];
  private static final CallPath[] PATHS = CallPath.values();

  private final FlowRegistry registry;
  private final Map<RuleKind, BlockVerdict> verdicts;
  private final Consumer<String> applicationNameListener;
  private final LaneGovernance lanes;
  private final RequestReaders readers;
  private final ReactiveHeaderWriter reactiveHeaders;
  private final RuleEffects effects;
  private final AgentLog log;
  private final RouteResources<GovernedResource> servletRoutes;
  private final RouteResources<GovernedResource> reactiveRoutes;
  private final ConcurrentHashMap<String, GovernedResource> gatewayRoutes =
      new ConcurrentHashMap<>();
  // The same resources by Route object, so a request skips the id read and the map.
  private final GatewayRouteSlots gatewayRouteSlots = new GatewayRouteSlots();
  // False only where GatewayAdviceColdBenchmark sets it (by reflection) to time the resolution the
  // way it went before the route slots: by the route's id, on every request.
  private boolean routesBySlot = true;
  // Resources resolved by name (client calls, other transports), one table per path.
  private final ConcurrentHashMap<String, GovernedResource>[] byName;
  // RPC services and methods, one table per RPC path (null for the others).
  private final RpcResources[] rpc;
  // False only where DubboAdviceColdBenchmark sets it (by reflection) to time the provider's method
  // lookup the way it went before its slots: by class, name and overload, on every call.
  private boolean methodsBySlot = true;
  // The context of a Dubbo provider's call, from its attachments (with its own small memo).
  private final DubboAttachments dubboAttachments = new DubboAttachments();
  private final AtomicBoolean overflowReported = new AtomicBoolean();
  private final Map<RuleKind, Boolean> outboundRulesByKind = new EnumMap<>(RuleKind.class);
  private volatile boolean outboundRules;
  private volatile boolean chainRules;
  private volatile boolean argumentRules;
  private volatile Fallbacks fallbacks = Fallbacks.NONE;
  private volatile String[] ownHeaders = NO_HEADERS;

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
  @SuppressWarnings("unchecked")
  public FlowGovernor(
      FlowRegistry registry,
      Map<RuleKind, BlockVerdict> verdicts,
      Consumer<String> applicationNameListener,
      LaneGovernance lanes,
      AgentLog log) {
    this.registry = registry;
    this.lanes = lanes;
    this.readers = lanes.readers();
    this.reactiveHeaders = new ReactiveHeaderWriter(log);
    this.verdicts = new EnumMap<>(verdicts);
    for (RuleKind kind : RuleKind.values()) {
      if (!this.verdicts.containsKey(kind)) {
        throw new IllegalArgumentException("no verdict for " + kind);
      }
    }
    this.applicationNameListener = applicationNameListener;
    this.log = log;
    this.effects = new RuleEffects(log, SluiceContext::sharedOrigins);
    this.servletRoutes = routeTable(CallPath.SERVLET_ROUTE);
    this.reactiveRoutes = routeTable(CallPath.REACTIVE_ROUTE);
    this.byName = new ConcurrentHashMap[PATHS.length];
    for (int i = 0; i < byName.length; i++) {
      byName[i] = new ConcurrentHashMap<>();
    }
    this.rpc = new RpcResources[PATHS.length];
    // A provider's invocations carry their method descriptor's parameter-types array, which its
    // slots key on; a consumer's carry a fresh copy per call, so it looks calls up by name.
    rpc[CallPath.DUBBO_PROVIDER.ordinal()] =
        new RpcResources(name -> byName(name, CallPath.DUBBO_PROVIDER), true);
    rpc[CallPath.DUBBO_CONSUMER.ordinal()] =
        new RpcResources(name -> byName(name, CallPath.DUBBO_CONSUMER));
  }

  private RouteResources<GovernedResource> routeTable(CallPath path) {
    return new RouteResources<>(
        name -> newResource(name, path), RouteResources.DEFAULT_MAX_ROUTES, this::reportOverflow);
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

  /**
   * This application's name, sent as {@code x-sluice-origin} on every outbound call from now on, so
   * the callee can apply {@code limitApp} and authority rules to it.
   */
  public void applicationNamed(String name) {
    if (name != null && !name.isBlank()) {
      ownHeaders = new String[] {SluiceContext.Headers.ORIGIN, name.trim()};
    }
  }

  // ---- resolution ----

  @Override
  public Object inboundResource(String method, String route, int path) {
    return path == REACTIVE_ROUTE
        ? reactiveRoutes.resolve(method, route)
        : servletRoutes.resolve(method, route);
  }

  @Override
  public Object resource(String name, int path) {
    CallPath callPath = CallPath.of(path);
    return callPath == null || name == null || name.isEmpty() ? null : byName(name, callPath);
  }

  @Override
  public Object rpcCall(Class<?> service, String method, Class<?>[] parameterTypes, int path) {
    if (service == null || method == null || path < 0 || path >= rpc.length) {
      return null;
    }
    RpcResources table = rpc[path];
    if (table == null) {
      return null;
    }
    return methodsBySlot
        ? table.call(service, method, parameterTypes)
        : table.callByName(service, method, parameterTypes);
  }

  @Override
  public SluiceContext rpcRouteContext(Object call) {
    return routeContext(((RpcCall) call).method);
  }

  @Override
  public long rpcAcquireService(Object call, Object[] args) {
    GovernedResource service = ((RpcCall) call).service;
    return service == null ? UNGOVERNED : acquire(service, args, null, SERVLET_REQUEST);
  }

  @Override
  public long rpcAcquireMethod(Object call, Object[] args, long servicePermit) {
    RpcCall rpcCall = (RpcCall) call;
    long permit = acquire(rpcCall.method, args, null, SERVLET_REQUEST);
    if (permit < 0 && servicePermit > 0) {
      rpcCall.service.flow.release(servicePermit, false);
    }
    return permit;
  }

  @Override
  public String rpcRefusalMessage(Object call, long servicePermit, long methodPermit) {
    RpcCall rpcCall = (RpcCall) call;
    boolean byService = servicePermit < 0;
    RuleKind kind = Permit.blockedBy(byService ? servicePermit : methodPermit);
    return "refused by Sluice: "
        + (kind == null ? "a" : kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'))
        + " rule on "
        + (byService ? rpcCall.service : rpcCall.method).name;
  }

  @Override
  public void rpcRelease(Object call, long servicePermit, long methodPermit, Throwable error) {
    RpcCall rpcCall = (RpcCall) call;
    if (methodPermit > 0) {
      rpcCall.method.flow.release(methodPermit, error != null);
    }
    if (servicePermit > 0) {
      rpcCall.service.flow.release(servicePermit, error != null);
    }
  }

  @Override
  public SluiceContext rpcInboundContext(Map<String, Object> attachments) {
    return dubboAttachments.contextOf(attachments);
  }

  /**
   * The resource of a gateway route: per request, its {@link GatewayRouteSlots} entry; the first
   * time a route object is seen (or after its slot went to another), by its id.
   */
  @Override
  public Object gatewayResource(Object route) {
    if (route == null) {
      return null;
    }
    if (routesBySlot) {
      GovernedResource resource = gatewayRouteSlots.get(route);
      if (resource != null) {
        return resource;
      }
      resource = gatewayResourceById(route);
      if (resource != null) {
        gatewayRouteSlots.put(route, resource);
      }
      return resource;
    }
    return gatewayResourceById(route);
  }

  /** The resource of the route's id, made on the first call with that id; null past the bound. */
  private GovernedResource gatewayResourceById(Object route) {
    String id = GatewayRoutes.idOf(route);
    if (id == null) {
      return null;
    }
    GovernedResource resource = gatewayRoutes.get(id);
    if (resource == null) {
      if (gatewayRoutes.size() >= RouteResources.DEFAULT_MAX_ROUTES) {
        reportOverflow();
        return null;
      }
      resource = gatewayRoutes.computeIfAbsent(id, r -> newResource(r, CallPath.GATEWAY_ROUTE));
    }
    return resource;
  }

  @Override
  public boolean governsOutbound() {
    return outboundRules;
  }

  @Override
  public Object outboundResource(String method, URI uri, String uriTemplate, int path) {
    if (!outboundRules) {
      return null;
    }
    URI logical = OutboundCall.takeLogicalTarget(uri);
    String name = ClientResourceNames.of(method, logical != null ? logical : uri, uriTemplate);
    CallPath callPath = path == REACTIVE_CLIENT ? CallPath.REACTIVE_CLIENT : CallPath.HTTP_CLIENT;
    return byName(name, callPath);
  }

  private GovernedResource byName(String name, CallPath path) {
    ConcurrentHashMap<String, GovernedResource> table = byName[path.ordinal()];
    GovernedResource resource = table.get(name);
    if (resource == null) {
      if (table.size() >= RouteResources.DEFAULT_MAX_ROUTES) {
        reportOverflow();
        return null;
      }
      resource = table.computeIfAbsent(name, n -> newResource(n, path));
    }
    return resource;
  }

  private GovernedResource newResource(String name, CallPath path) {
    Resource flow = registry.resource(name, path.inbound ? Direction.INBOUND : Direction.OUTBOUND);
    effects.resourceSeen(name, path);
    return new GovernedResource(flow, path);
  }

  private void reportOverflow() {
    if (overflowReported.compareAndSet(false, true)) {
      log.warn(
          "more than "
              + RouteResources.DEFAULT_MAX_ROUTES
              + " routes or client targets on one path; further ones are not governed");
    }
  }

  // ---- decisions ----

  @Override
  public boolean readsArguments() {
    return argumentRules;
  }

  @Override
  public boolean needsArguments(Object resource) {
    return ((GovernedResource) resource).flow.needsArguments();
  }

  @Override
  public SluiceContext routeContext(Object resource) {
    if (!chainRules) {
      return null;
    }
    GovernedResource governed = (GovernedResource) resource;
    SluiceContext current = SluiceContext.current();
    if (current == null) {
      SluiceContext entranceOnly = governed.entranceOnly;
      if (entranceOnly == null) {
        entranceOnly = SluiceContext.ofEntrance(governed.name);
        governed.entranceOnly = entranceOnly;
      }
      return entranceOnly;
    }
    SluiceContext routed = current.withEntrance(governed.name);
    return routed == current ? null : routed;
  }

  @Override
  public long acquire(Object resource, Object[] args, Object request, int requestKind) {
    GovernedResource governed = (GovernedResource) resource;
    long permit = decide(governed, args, request, requestKind);
    if (Permit.mustWait(permit)) {
      // A pacing rule scheduled this call; the threads calling here are the call's own.
      long waitNanos = governed.flow.waitNanos(permit);
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
  public long tryAcquire(Object resource, Object request, int requestKind) {
    return decide((GovernedResource) resource, null, request, requestKind);
  }

  private long decide(GovernedResource governed, Object[] args, Object request, int requestKind) {
    SluiceContext context = SluiceContext.current();
    String origin = context == null ? null : context.origin();
    String entrance = context == null ? null : context.entrance();
    if (args != null && governed.argumentCount < 0) {
      governed.argumentCount = args.length;
      effects.argumentsSeen(governed, args.length);
    }
    CallAttributes attributes = request == null ? null : readers.attributes(requestKind);
    return governed.flow.tryAcquire(origin, entrance, args, attributes, request);
  }

  @Override
  public long waitNanos(Object resource, long permit) {
    return ((GovernedResource) resource).flow.waitNanos(permit);
  }

  @Override
  public BlockVerdict refusal(Object resource, long permit) {
    RuleKind kind = Permit.blockedBy(permit);
    if (kind == null) {
      return null;
    }
    BlockVerdict fallback = fallbacks.verdict(((GovernedResource) resource).name, kind);
    return fallback != null ? fallback : verdicts.get(kind);
  }

  @Override
  public void release(Object resource, long permit, int status, Throwable error) {
    ((GovernedResource) resource).flow.release(permit, error != null || status >= 500);
  }

  @Override
  public String[] outboundHeaders() {
    SluiceContext context = SluiceContext.current();
    String[] own = ownHeaders;
    return context == null ? own : context.outboundHeaders(own);
  }

  @Override
  public boolean writeRequestHeader(Object request, String name, String value) {
    return reactiveHeaders.write(request, name, value);
  }

  // ---- lanes, gateway and Spring plumbing ----

  @Override
  public String entryLane(Object request, int kind) {
    return lanes.entryLane(request, kind);
  }

  @Override
  public List<?> laneInstances(List<?> instances) {
    return lanes.laneInstances(instances);
  }

  @Override
  public List<?> rpcLaneInvokers(List<?> routed, Object directory) {
    return lanes.laneInvokers(routed, directory);
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
  public int statusOf(Object response) {
    return ResponseStatus.of(response);
  }

  @Override
  public Object jdkHttpResponse(BlockVerdict verdict, Object request, Object bodyHandler)
      throws Exception {
    return JdkResponses.of(
        verdict,
        (java.net.http.HttpRequest) request,
        (java.net.http.HttpResponse.BodyHandler<?>) bodyHandler);
  }

  @Override
  public void springEnvironmentPrepared(String applicationName) {
    applicationNameListener.accept(applicationName);
  }

  // ---- documents ----

  @Override
  public void apply(RuleType type, String json) throws InvalidRulesException {
    switch (type) {
      case LANES:
        try {
          lanes.apply(json);
        } catch (InvalidLanesException e) {
          throw new InvalidRulesException(e.getMessage(), e);
        }
        return;
      case FALLBACKS:
        applyFallbacks(json);
        return;
      default:
        applyRules(kindOf(type), json);
    }
  }

  private void applyRules(RuleKind kind, String json) throws InvalidRulesException {
    RuleDocument document;
    try {
      document = RuleDocument.parse(kind, json == null || json.isBlank() ? "[]" : json);
      registry.load(document);
    } catch (InvalidRuleDocumentException e) {
      throw new InvalidRulesException(e.getMessage(), e);
    } catch (RuntimeException e) {
      throw new InvalidRulesException(kind + " rules could not be loaded: " + e.getMessage(), e);
    }
    List<RuleInfo> rules = document.rules();
    boolean outbound = false;
    boolean chain = false;
    boolean arguments = false;
    for (RuleInfo rule : rules) {
      outbound |= namesOutbound(rule);
      chain |= rule.strategy() == RuleInfo.Strategy.CHAIN;
      arguments |= rule.paramIdx() != null;
    }
    synchronized (outboundRulesByKind) {
      outboundRulesByKind.put(kind, outbound);
      outboundRules = outboundRulesByKind.containsValue(true);
      if (kind == RuleKind.FLOW) {
        chainRules = chain;
      } else if (kind == RuleKind.PARAM_FLOW) {
        argumentRules = arguments;
      }
    }
    log.info(kind + " rules in force: " + rules.size());
    effects.rulesApplied(kind, rules);
  }

  /** Whether a rule may name an outbound resource: "GET host/path", or a pattern. */
  private static boolean namesOutbound(RuleInfo rule) {
    return rule.resource() != null
        && (rule.regex()
            || OUTBOUND_NAME.matcher(rule.resource()).matches()
            || (rule.refResource() != null && OUTBOUND_NAME.matcher(rule.refResource()).matches()));
  }

  private void applyFallbacks(String json) throws InvalidRulesException {
    Fallbacks parsed;
    try {
      parsed = Fallbacks.parse(json);
    } catch (Fallbacks.InvalidFallbacksException e) {
      throw new InvalidRulesException(e.getMessage(), e);
    }
    fallbacks = parsed;
    log.info("fallbacks in force: " + parsed.descriptions().size());
    effects.fallbacksApplied(parsed);
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
      default:
        throw new IllegalArgumentException(type + " is not a flow rule kind");
    }
  }

  /**
   * Every resource this application has resolved, name to the kinds of call site ("Spring MVC
   * route", "Dubbo provider method"); a copy, for the traffic reports.
   */
  public Map<String, String> resourcesSeen() {
    return effects.resourcesSeen();
  }

  /** How many resources {@link #resourcesSeen()} would list, without building it. */
  public int resourcesSeenCount() {
    return effects.resourcesSeenCount();
  }

  FlowRegistry registry() {
    return registry;
  }
}
