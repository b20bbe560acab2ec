package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.OutboundCall;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.logging.AgentLog;
import io.sluice.agent.rules.InvalidRulesException;
import io.sluice.agent.rules.RuleType;
import io.sluice.flow.FlowRegistry;
import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The governance glue over a real sluice-flow registry, with time under the test's control. */
class FlowGovernorTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final List<String> names = new ArrayList<>();
  private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
  private final FlowGovernor governor =
      new FlowGovernor(
          FlowRegistry.builder().ticker(nanos::get).build(),
          FlowGovernor.verdicts(429, 503, 1),
          names::add,
          AgentLog.toStream(
              new PrintStream(logBytes, true, StandardCharsets.UTF_8), AgentLog.Level.INFO));

  @AfterEach
  void clearTheThread() {
    SluiceContext.restore(null);
  }

  private Object route(String method, String pattern) {
    return governor.inboundResource(method, pattern, GovernanceHooks.SERVLET_ROUTE);
  }

  private String log() {
    return logBytes.toString(StandardCharsets.UTF_8);
  }

  /** A servlet request answering only {@code getHeader} and {@code getQueryString}. */
  private static HttpServletRequest request(Map<String, String> headers, String query) {
    return (HttpServletRequest)
        Proxy.newProxyInstance(
            FlowGovernorTest.class.getClassLoader(),
            new Class<?>[] {HttpServletRequest.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "getHeader" -> headers.get(((String) args[0]).toLowerCase());
                  case "getQueryString" -> query;
                  default -> null;
                });
  }

  @Test
  void aRouteWithoutRulesIsUngoverned() {
    Object resource = route("GET", "/orders/{id}");

    assertThat(resource).isNotNull();
    assertThat(governor.acquire(resource)).isEqualTo(GovernanceHooks.UNGOVERNED);
  }

  @Test
  void refusesAboveTheLimitWithTheFlowVerdict() throws Exception {
    governor.apply(RuleType.FLOW, "[{\"resource\":\"GET /orders/{id}\",\"count\":2}]");
    Object resource = route("GET", "/orders/{id}");

    long first = governor.acquire(resource);
    long second = governor.acquire(resource);
    long third = governor.acquire(resource);

    assertThat(first).isPositive();
    assertThat(second).isPositive();
    assertThat(third).isNegative();
    BlockVerdict verdict = governor.refusal(resource, third);
    assertThat(verdict.status()).isEqualTo(429);
    assertThat(verdict.retryAfter()).isEqualTo("1");
    assertThat(verdict.headers()).containsExactly("Retry-After", "1");
    governor.release(resource, first, 200, null);
    governor.release(resource, second, 200, null);

    nanos.addAndGet(1_100_000_000L); // the calls above have left the one-second window
    assertThat(governor.acquire(resource)).isPositive();
  }

  @Test
  void answersAnOpenBreakerWithTheDegradeVerdict() throws Exception {
    governor.apply(
        RuleType.DEGRADE,
        "[{\"resource\":\"GET /work\",\"grade\":2,\"count\":1,\"minRequestAmount\":1,"
            + "\"statIntervalMs\":1000,\"timeWindow\":5}]");
    Object resource = route("GET", "/work");

    for (int i = 0; i < 3; i++) {
      long permit = governor.acquire(resource);
      if (permit > 0) {
        governor.release(resource, permit, 500, null); // a 5xx counts as an error
      }
    }
    long refused = governor.acquire(resource);

    assertThat(refused).isNegative();
    assertThat(governor.refusal(resource, refused).status()).isEqualTo(503);
  }

  @Test
  void limitsByTheOriginInTheCurrentContext() throws Exception {
    governor.apply(RuleType.FLOW, "[{\"resource\":\"GET /a\",\"count\":1,\"limitApp\":\"batch\"}]");
    Object resource = route("GET", "/a");

    SluiceContext.replace(SluiceContext.of("batch", null));
    assertThat(governor.acquire(resource)).isPositive();
    assertThat(governor.acquire(resource)).isNegative();
    SluiceContext.replace(SluiceContext.of("web", null));
    assertThat(governor.acquire(resource)).isNotNegative();
    assertThat(governor.acquire(resource)).isNotNegative();
  }

  @Test
  void refusesACallerAnAuthorityRuleBlacklistsAndLetsOthersAndUnknownCallersPass()
      throws Exception {
    governor.apply(
        RuleType.AUTHORITY, "[{\"resource\":\"GET /a\",\"limitApp\":\"batch\",\"strategy\":1}]");
    Object resource = route("GET", "/a");

    SluiceContext.replace(SluiceContext.of("batch", null));
    long refused = governor.acquire(resource);
    assertThat(refused).isNegative();
    assertThat(governor.refusal(resource, refused).status()).isEqualTo(403);
    SluiceContext.replace(SluiceContext.of("web", null));
    assertThat(governor.acquire(resource)).isNotNegative();
    SluiceContext.restore(null);
    assertThat(governor.acquire(resource)).isNotNegative();
  }

  @Test
  void appliesAChainRuleOnlyToCallsMadeWhileServingItsEntrance() throws Exception {
    governor.apply(
        RuleType.FLOW,
        "[{\"resource\":\"GET stock/items/{id}\",\"count\":0,\"strategy\":2,"
            + "\"refResource\":\"GET /checkout\"}]");
    Object checkout = route("GET", "/checkout");
    Object browse = route("GET", "/browse");
    URI stock = URI.create("http://stock/items/42");

    SluiceContext previous = SluiceContext.replace(governor.routeContext(checkout));
    Object call = governor.outboundResource("GET", stock, null);
    assertThat(governor.acquire(call)).isNegative();
    SluiceContext.restore(previous);

    SluiceContext.replace(SluiceContext.of("web", null));
    SluiceContext routed = governor.routeContext(browse);
    assertThat(routed.origin()).isEqualTo("web");
    assertThat(routed.entrance()).isEqualTo("GET /browse");
    SluiceContext.replace(routed);
    assertThat(governor.acquire(governor.outboundResource("GET", stock, null))).isNotNegative();
  }

  @Test
  void needsNoRouteContextWithoutChainRules() throws Exception {
    governor.apply(RuleType.FLOW, "[{\"resource\":\"GET /a\",\"count\":1}]");
    assertThat(governor.routeContext(route("GET", "/a"))).isNull();
  }

  @Test
  void defersARouteWhoseHotParameterRuleReadsAnArgumentAndLimitsOneValue() throws Exception {
    governor.apply(
        RuleType.PARAM_FLOW, "[{\"resource\":\"GET /orders/{id}\",\"paramIdx\":0,\"count\":2}]");
    Object resource = route("GET", "/orders/{id}");

    assertThat(governor.readsArguments()).isTrue();
    assertThat(governor.needsArguments(resource)).isTrue();
    Object[] hot = {"42"};
    assertThat(governor.acquire(resource, hot, null, GovernanceHooks.SERVLET_REQUEST)).isPositive();
    assertThat(governor.acquire(resource, hot, null, GovernanceHooks.SERVLET_REQUEST)).isPositive();
    long refused = governor.acquire(resource, hot, null, GovernanceHooks.SERVLET_REQUEST);
    assertThat(refused).isNegative();
    assertThat(governor.refusal(resource, refused).reason()).isEqualTo("param-flow");
    assertThat(governor.acquire(resource, new Object[] {"7"}, null, 0)).isPositive();
    assertThat(route("GET", "/other"))
        .satisfies(r -> assertThat(governor.needsArguments(r)).isFalse());
  }

  @Test
  void warnsOnceWhenAHotParameterRuleNamesAnArgumentTheHandlerDoesNotHave() throws Exception {
    governor.apply(
        RuleType.PARAM_FLOW, "[{\"resource\":\"GET /orders/{id}\",\"paramIdx\":3,\"count\":2}]");
    Object resource = route("GET", "/orders/{id}");

    governor.acquire(resource, new Object[] {"42"}, null, 0);
    governor.acquire(resource, new Object[] {"42"}, null, 0);

    assertThat(log())
        .containsOnlyOnce(
            "cannot take effect on GET /orders/{id} (Spring MVC route): its handler method takes 1"
                + " argument, so there is no argument 3");
  }

  @Test
  void limitsTheHeaderOrQueryParameterARuleNamesOnTheRequest() throws Exception {
    governor.apply(
        RuleType.PARAM_FLOW,
        "[{\"resource\":\"GET /search\",\"count\":1,\"paramSource\":{\"header\":\"x-user\"}},"
            + "{\"resource\":\"GET /search\",\"count\":2,\"paramSource\":{\"query\":\"q\"}}]");
    Object resource = route("GET", "/search");
    HttpServletRequest alice = request(Map.of("x-user", "alice"), "q=shoes&page=2");
    HttpServletRequest bob = request(Map.of("x-user", "bob"), "q=shoes");

    assertThat(governor.needsArguments(resource)).isFalse();
    assertThat(governor.acquire(resource, null, alice, GovernanceHooks.SERVLET_REQUEST))
        .isPositive();
    assertThat(governor.acquire(resource, null, alice, GovernanceHooks.SERVLET_REQUEST))
        .as("alice's second call")
        .isNegative();
    assertThat(governor.acquire(resource, null, bob, GovernanceHooks.SERVLET_REQUEST))
        .as("bob: his own budget; the second call with q=shoes")
        .isPositive();
    assertThat(governor.acquire(resource, null, request(Map.of("x-user", "carol"), "q=shoes"), 0))
        .as("the third call with q=shoes")
        .isNegative();
  }

  @Test
  void answersARefusedRouteWithItsFallbackForTheKindsItNames() throws Exception {
    governor.apply(
        RuleType.FALLBACKS,
        "{\"fallbacks\":[{\"resource\":\"GET /a\",\"blockedBy\":[\"flow\"],\"status\":200,"
            + "\"contentType\":\"application/json\",\"headers\":{\"x-degraded\":\"1\"},"
            + "\"body\":\"{\\\"items\\\":[]}\"}]}");
    governor.apply(RuleType.FLOW, "[{\"resource\":\"GET /a\",\"count\":0}]");
    Object resource = route("GET", "/a");

    BlockVerdict verdict = governor.refusal(resource, governor.acquire(resource));

    assertThat(verdict.status()).isEqualTo(200);
    assertThat(verdict.contentType()).isEqualTo("application/json");
    assertThat(verdict.headers()).containsExactly("x-degraded", "1");
    assertThat(new String(verdict.body(), StandardCharsets.UTF_8)).isEqualTo("{\"items\":[]}");
    assertThat(verdict.respondsOutbound()).isFalse();

    governor.apply(RuleType.FLOW, "[]");
    governor.apply(RuleType.AUTHORITY, "[{\"resource\":\"GET /a\",\"limitApp\":\"x\"}]");
    SluiceContext.replace(SluiceContext.of("intruder", null));
    assertThat(governor.refusal(resource, governor.acquire(resource)).status())
        .as("no fallback for authority refusals")
        .isEqualTo(403);
  }

  @Test
  void keepsTheFallbacksInForceWhenTheirDocumentIsInvalid() throws Exception {
    governor.apply(
        RuleType.FALLBACKS, "{\"fallbacks\":[{\"resource\":\"GET /a\",\"status\":200}]}");
    assertThatThrownBy(
            () ->
                governor.apply(
                    RuleType.FALLBACKS,
                    "{\"fallbacks\":[{\"resource\":\"GET /a\",\"status\":200,\"bdy\":\"x\"}]}"))
        .isInstanceOf(InvalidRulesException.class)
        .hasMessageContaining("fallbacks[0] (GET /a): unknown member 'bdy'");
    governor.apply(RuleType.FLOW, "[{\"resource\":\"GET /a\",\"count\":0}]");
    Object resource = route("GET", "/a");
    assertThat(governor.refusal(resource, governor.acquire(resource)).status()).isEqualTo(200);
  }

  @Test
  void namesOutboundCallsOnlyWhileSomeRuleNamesAnOutboundResource() throws Exception {
    URI uri = URI.create("http://stock:8080/items/42");
    governor.apply(RuleType.FLOW, "[{\"resource\":\"GET /orders/{id}\",\"count\":2}]");
    assertThat(governor.outboundResource("GET", uri, null)).isNull();

    governor.apply(
        RuleType.DEGRADE,
        "[{\"resource\":\"GET stock:8080/items/{id}\",\"grade\":2,\"count\":1,\"timeWindow\":1}]");
    assertThat(governor.outboundResource("GET", uri, null)).isNotNull();

    governor.apply(RuleType.DEGRADE, null);
    assertThat(governor.outboundResource("GET", uri, null)).isNull();
  }

  @Test
  void namesACallThroughALoadBalancerByItsServiceWhicheverInstanceItReaches() throws Exception {
    governor.apply(RuleType.FLOW, "[{\"resource\":\"GET orders/orders/{id}\",\"count\":1}]");
    URI logical = URI.create("http://orders/orders/7");
    for (String instance :
        List.of("http://10.0.0.5:20002/orders/7", "http://10.0.0.6:20002/orders/8")) {
      URI resolved = URI.create(instance);
      OutboundCall.setLogicalTarget(resolved, logical);
      Object call =
          governor.outboundResource("GET", resolved, null, GovernanceHooks.REACTIVE_CLIENT);
      assertThat(call).hasToString("GET orders/orders/{id} (WebClient call)");
    }
    // A URI the balancer did not just resolve is named by its own host.
    assertThat(governor.outboundResource("GET", URI.create("http://10.0.0.5:20002/x"), null))
        .hasToString("GET 10.0.0.5:20002/x (HTTP client call)");
  }

  @Test
  void sendsThisApplicationsNameAndTheLaneOnEveryOutboundCall() {
    assertThat(governor.outboundHeaders()).isEmpty();
    governor.applicationNamed("orders");

    assertThat(governor.outboundHeaders()).containsExactly("x-sluice-origin", "orders");
    SluiceContext.replace(SluiceContext.inbound("web", null, "gray", null));
    assertThat(governor.outboundHeaders())
        .containsExactly("x-sluice-lane", "gray", "x-mse-tag", "gray", "x-sluice-origin", "orders");
    assertThat(governor.outboundHeaders()).isSameAs(governor.outboundHeaders());
  }

  @Test
  void saysOnceWhetherEachRuleCanTakeEffectAndWhenAWaitingRuleStartsTo() throws Exception {
    route("GET", "/known");
    governor.apply(
        RuleType.FLOW,
        "[{\"resource\":\"GET /known\",\"count\":5},{\"resource\":\"GET /later\",\"count\":5},"
            + "{\"resource\":\"GET /known\",\"count\":9,\"limitApp\":\"batch\"}]");
    governor.apply(
        RuleType.FLOW,
        "[{\"resource\":\"GET /known\",\"count\":5},{\"resource\":\"GET /later\",\"count\":5},"
            + "{\"resource\":\"GET /known\",\"count\":9,\"limitApp\":\"batch\"}]");
    governor.apply(RuleType.PARAM_FLOW, "[{\"resource\":\"a-route\",\"paramIdx\":0,\"count\":1}]");
    governor.gatewayResource(new FakeRoute("a-route"));

    String log = log();
    assertThat(log)
        .containsOnlyOnce(
            "flow rule {resource=GET /known, limitApp=default, grade=QPS, count=5.0}: in effect on"
                + " a Spring MVC route")
        .containsOnlyOnce(
            "flow rule {resource=GET /later, limitApp=default, grade=QPS, count=5.0}: waits for its"
                + " resource: no call to 'GET /later' seen so far")
        .contains("It applies to callers by name")
        .contains(
            "param-flow rule {resource=a-route, paramIdx=0, count=1.0, durationInSec=1}: cannot take"
                + " effect: a Spring Cloud Gateway route has no method arguments to take paramIdx 0"
                + " from");

    route("GET", "/later");
    assertThat(log())
        .containsOnlyOnce(
            "flow rule {resource=GET /later, limitApp=default, grade=QPS, count=5.0}: in effect on"
                + " a Spring MVC route since the first call to GET /later (Spring MVC route)");
  }

  @Test
  void resolvesAResourceByItsFullNameForTransportsThatNameTheirCalls() throws Exception {
    governor.apply(
        RuleType.FLOW, "[{\"resource\":\"com.example.Hello:hi(java.lang.String)\",\"count\":0}]");

    Object call =
        governor.resource("com.example.Hello:hi(java.lang.String)", GovernanceHooks.HTTP_CLIENT);

    assertThat(governor.acquire(call)).isNegative();
    assertThat(governor.resource("x", 99)).as("unknown path").isNull();
    assertThat(governor.resource("", GovernanceHooks.HTTP_CLIENT)).isNull();
  }

  @Test
  void keepsTheRulesInForceWhenADocumentIsInvalid() throws Exception {
    governor.apply(RuleType.FLOW, "[{\"resource\":\"GET /a\",\"count\":1}]");

    assertThatThrownBy(() -> governor.apply(RuleType.FLOW, "{not json"))
        .isInstanceOf(InvalidRulesException.class);

    Object resource = route("GET", "/a");
    assertThat(governor.acquire(resource)).isPositive();
    assertThat(governor.acquire(resource)).isNegative();
  }

  @Test
  void passesSpringsApplicationNameOn() {
    governor.springEnvironmentPrepared("orders");
    assertThat(names).containsExactly("orders");
  }

  /** Stands for a Spring Cloud Gateway route: the governor reads its id through getId(). */
  public static final class FakeRoute {
    private final String id;

    FakeRoute(String id) {
      this.id = id;
    }

    public String getId() {
      return id;
    }
  }
}
