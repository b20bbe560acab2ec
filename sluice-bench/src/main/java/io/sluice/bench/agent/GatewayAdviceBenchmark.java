package io.sluice.bench.agent;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.governance.FlowGovernor;
import io.sluice.agent.governance.LaneGovernance;
import io.sluice.agent.logging.AgentLog;
import io.sluice.agent.rules.RuleType;
import io.sluice.bench.agent.GatewayHeadersBenchmark.NettyBackedRequest;
import io.sluice.bench.agent.GatewayHeadersBenchmark.UnwrittenResponse;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.cloud.client.DefaultServiceInstance;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.http.HttpHeaders;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.adapter.DefaultServerWebExchange;
import org.springframework.web.server.i18n.AcceptHeaderLocaleContextResolver;
import org.springframework.web.server.session.DefaultWebSessionManager;

/**
 * What the agent adds to one request through a Spring Cloud Gateway, without the network around it:
 * the calls its advices make, in the order a request runs them, on Spring's own request and
 * exchange (a request on Netty's headers, as Reactor Netty builds it, with the headers an API
 * client sends):
 *
 * <ol>
 *   <li>scope: Reactor Netty's server scope opened and, at the end, closed ({@code
 *       ServerScopeAdvice});
 *   <li>entry: the request's context from its headers, the entry rules' lane, the lane header
 *       written into the request ({@code ServerEntryAdvice});
 *   <li>route headers: the matched route from the exchange's attributes, the outbound headers
 *       written into the request ({@code FilteringWebHandlerAdvice});
 *   <li>resource: the route's governed resource ({@code gatewayResource});
 *   <li>permit: the route's context, the permit, its wait;
 *   <li>lane pick: the load balancer's instance list narrowed to the request's lane ({@code
 *       LaneInstancesAdvice});
 *   <li>release: the permit released when the pipeline ends ({@code ReactivePermit}), status 200.
 * </ol>
 *
 * {@code rules=demo}: a lane entered by a header ({@code x-user-id: 42}, which the request
 * carries), a flow rule on the route never reached; the route is one of {@link #ROUTES} routes the
 * gateway has served; the service behind it has three base instances and a gray one. {@code
 * rules=none}: no rule, no lane, no tagged instance. {@code routeLookup=id} resolves the route the
 * way it went before the per-route slots: its id read through a method handle, then the id map, on
 * every request ({@code -p routeLookup=slot,id} for both). Each operation then removes the two
 * headers it wrote, so the next one starts from the same request (that removal is counted). Check
 * the allocations with:
 *
 * <pre>
 * java -jar sluice-bench/target/benchmarks.jar GatewayAdviceBenchmark -p routeLookup=slot,id \
 *     -prof gc
 * </pre>
 *
 * Writing the two headers allocates what Netty's header map and Spring's writable view allocate;
 * {@code routeResource} must allocate nothing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class GatewayAdviceBenchmark {
  /** Spring Cloud Gateway's {@code ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR}. */
  static final String GATEWAY_ROUTE =
      "org.springframework.cloud.gateway.support.ServerWebExchangeUtils.gatewayRoute";

  static final int ROUTES = 8;
  static final int SCOPE = 1;
  static final int ENTRY = 2;
  static final int HEADERS = 3;
  static final int RESOURCE = 4;
  static final int PERMIT = 5;
  static final int LANES = 6;
  static final int ALL = 7;

  private static final String NEVER = "1000000000";
  private static final String LANE = SluiceContext.Headers.LANE;
  private static final String ORIGIN = SluiceContext.Headers.ORIGIN;

  @Param({"none", "demo"})
  public String rules;

  /** {@code slot} (by the route object, as the agent does) or {@code id} (as before). */
  @Param({"slot", "id"})
  public String routeLookup = "slot";

  /** The registry's clock; {@link GatewayAdviceColdBenchmark} sets its own. */
  Ticker ticker = Ticker.system();

  FlowGovernor governor;
  DefaultHttpHeaders netty;
  ServerHttpRequest request;
  ServerWebExchange exchange;
  BenchRoute route;
  private List<ServiceInstance> instances;
  private ServiceInstance grayInstance;

  /** Stands for Spring Cloud Gateway's {@code Route}: the agent reads its id through getId(). */
  public static final class BenchRoute {
    private final String id;

    BenchRoute(String id) {
      this.id = id;
    }

    public String getId() {
      return id;
    }
  }

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    AgentLog log = AgentLog.toStream(System.err, AgentLog.Level.WARN);
    governor =
        new FlowGovernor(
            FlowRegistry.builder().ticker(ticker).build(),
            FlowGovernor.verdicts(429, 503, 1),
            name -> {},
            new LaneGovernance(null, log),
            log);
    governor.applicationNamed("gateway");
    if (routeLookup.equals("id")) {
      resolveById(governor);
    } else if (!routeLookup.equals("slot")) {
      throw new IllegalArgumentException("routeLookup is slot or id, not " + routeLookup);
    }
    boolean demo = rules.equals("demo");
    List<BenchRoute> routes = new ArrayList<>();
    for (int i = 0; i < ROUTES; i++) {
      routes.add(new BenchRoute("route-" + i));
    }
    route = routes.get(3);
    if (demo) {
      governor.apply(
          RuleType.LANES,
          "{\"lanes\":[{\"name\":\"gray-users\",\"tag\":\"gray\","
              + "\"conditions\":[{\"header\":\"x-user-id\",\"oneOf\":[\"42\"]}]}]}");
      governor.apply(
          RuleType.FLOW,
          "[{\"resource\":\"" + route.getId() + "\",\"grade\":1,\"count\":" + NEVER + "}]");
    }
    for (BenchRoute known : routes) {
      governor.gatewayResource(known);
    }
    instances = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      instances.add(instance(20000 + i, Map.of("preserved.register.source", "SPRING_CLOUD")));
    }
    // Without rules, no instance is tagged either (nothing to govern at all).
    grayInstance =
        instance(
            20009,
            demo
                ? Map.of("sluice.lane", "gray")
                : Map.of("preserved.register.source", "SPRING_CLOUD"));
    instances.add(grayInstance);
    netty = new DefaultHttpHeaders();
    netty.add("Host", "127.0.0.1:18080");
    netty.add("User-Agent", "Java-http-client/17.0.13");
    netty.add("Accept", "application/json");
    netty.add("Accept-Encoding", "gzip");
    netty.add("X-Request-Id", "3f2b8c1e-58d4-4f7a-9a57-0c1d2e3f4a5b");
    netty.add("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    netty.add("X-Forwarded-For", "10.0.0.7");
    netty.add("X-User-Id", "42");
    request = new NettyBackedRequest(netty);
    exchange =
        new DefaultServerWebExchange(
            request,
            new UnwrittenResponse(),
            new DefaultWebSessionManager(),
            ServerCodecConfigurer.create(),
            new AcceptHeaderLocaleContextResolver());
    exchange.getAttributes().put(GATEWAY_ROUTE, route);
  }

  private static ServiceInstance instance(int port, Map<String, String> metadata) {
    return new DefaultServiceInstance("b-" + port, "b", "127.0.0.1", port, false, metadata);
  }

  /**
   * Sends {@code governor}'s gateway routes the way they were resolved before the per-route slots:
   * by id on every request. The switch is the agent's (private); set here by reflection, once.
   */
  static void resolveById(FlowGovernor governor) throws ReflectiveOperationException {
    java.lang.reflect.Field bySlot = FlowGovernor.class.getDeclaredField("routesBySlot");
    bySlot.setAccessible(true);
    bySlot.setBoolean(governor, false);
  }

  /** The request went where it should: lane, headers, resource, instances. */
  @TearDown(Level.Trial)
  public void check() {
    boolean demo = rules.equals("demo");
    SluiceContext previous = SluiceContext.enterServerScope();
    try {
      enter();
      routeHeaders();
      Object governed = governor.gatewayResource(route);
      if (governed == null || !governed.toString().startsWith(route.getId() + " ")) {
        throw new IllegalStateException("the route resolved to " + governed);
      }
      List<?> chosen = governor.laneInstances(instances);
      String lane = request.getHeaders().getFirst(LANE);
      if (!"gateway".equals(request.getHeaders().getFirst(ORIGIN))
          || (demo
              ? !"gray".equals(lane) || !chosen.equals(List.of(grayInstance))
              : lane != null || chosen.size() != instances.size())) {
        throw new IllegalStateException("lane " + lane + ", picked " + chosen);
      }
    } finally {
      SluiceContext.exitServerScope(previous);
      clearHeaders();
    }
  }

  /** The whole request, as the gateway's advices run it. */
  @Benchmark
  public long gatewayRequest() {
    long result = request(ALL);
    clearHeaders();
    return result;
  }

  /** The route's resource alone. */
  @Benchmark
  public Object routeResource() {
    return governor.gatewayResource(route);
  }

  void clearHeaders() {
    netty.remove(LANE);
    netty.remove(ORIGIN);
  }

  /**
   * The request's advices up to and including step {@code steps} ({@link #SCOPE}..{@link #ALL}).
   */
  long request(int steps) {
    // ServerScopeAdvice.enter
    SluiceContext previous = SluiceContext.enterServerScope();
    Object governed = null;
    long permit = 0;
    long result = 0;
    try {
      if (steps >= ENTRY) {
        enter();
      }
      if (steps >= HEADERS) {
        Object matched = routeHeaders();
        if (steps >= RESOURCE) {
          governed = governor.gatewayResource(matched);
        }
      }
      if (governed != null && steps >= PERMIT) {
        SluiceContext.attachInServerScope(governor.routeContext(governed));
        permit =
            governor.tryAcquire(governed, exchange.getRequest(), GovernanceHooks.REACTIVE_REQUEST);
        if (permit < 0) {
          throw new IllegalStateException("refused: " + governor.refusal(governed, permit));
        }
        result = permit + governor.waitNanos(governed, permit);
      }
      if (steps >= LANES) {
        // ReactiveLoadBalancerClientFilter, subscribed within the scope: the balancer's pick.
        result += governor.laneInstances(instances).size();
      }
    } finally {
      // ServerScopeAdvice.exit
      SluiceContext.exitServerScope(previous);
    }
    if (steps >= ALL && permit > 0) {
      // ReactivePermit, when the pipeline ends.
      governor.release(governed, permit, 200, null);
    }
    return result;
  }

  /** ServerEntryAdvice.enter. */
  private void enter() {
    HttpHeaders headers = request.getHeaders();
    String origin =
        SluiceContext.originOf(
            headers.getFirst(SluiceContext.Headers.ORIGIN),
            headers.getFirst(SluiceContext.Headers.SENTINEL_ORIGIN));
    String sluiceLane = headers.getFirst(LANE);
    SluiceContext context =
        SluiceContext.inbound(
            origin,
            sluiceLane,
            headers.getFirst(SluiceContext.Headers.MSE_LANE),
            headers.getFirst(SluiceContext.Headers.BAGGAGE));
    if (context == null || context.lane() == null) {
      String entered = governor.entryLane(request, GovernanceHooks.REACTIVE_REQUEST);
      if (entered != null) {
        context = SluiceContext.of(origin, entered);
      }
    }
    if (context == null) {
      return;
    }
    String lane = context.lane();
    if (sluiceLane == null && lane != null && !governor.writeRequestHeader(request, LANE, lane)) {
      throw new IllegalStateException("the lane was not written in place");
    }
    SluiceContext.attachInServerScope(context);
  }

  /** FilteringWebHandlerAdvice.enter up to the resource: the route and the outbound headers. */
  private Object routeHeaders() {
    Object matched = exchange.getAttribute(GATEWAY_ROUTE);
    String[] headers = governor.outboundHeaders();
    if (headers.length > 0) {
      ServerHttpRequest proxied = exchange.getRequest();
      HttpHeaders present = proxied.getHeaders();
      for (int i = 0; i + 1 < headers.length; i += 2) {
        // As the advice does: a header the request carries already is not written again.
        if (!headers[i + 1].equals(present.getFirst(headers[i]))
            && !governor.writeRequestHeader(proxied, headers[i], headers[i + 1])) {
          throw new IllegalStateException(headers[i] + " was not written in place");
        }
      }
    }
    return matched;
  }
}
