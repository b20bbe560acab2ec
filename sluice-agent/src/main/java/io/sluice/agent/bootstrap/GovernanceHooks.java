package io.sluice.agent.bootstrap;

import java.net.URI;
import java.util.List;

/**
 * What advice calls into: the governance decisions for inbound routes and outbound calls. The agent
 * installs its implementation in {@link SluiceHooks}; until then (and if the agent failed to start)
 * this no-op base class admits everything.
 *
 * <p>Protocol of a governed call, allocation-free on the admitted path:
 *
 * <ol>
 *   <li>resolve the call to a resource handle ({@link #inboundResource}, {@link #gatewayResource},
 *       {@link #outboundResource}, or {@link #resource} for any other transport), or null when
 *       nothing can govern it (the advice then stops). The {@code path} a resource is resolved on
 *       says what the call site can offer (arguments, request attributes, waiting), which the agent
 *       uses to tell whether a rule can take effect there;
 *   <li>on an inbound call, {@link #routeContext} gives the context to make current while serving
 *       it (the route as the entrance of CHAIN rules), if any rule needs one;
 *   <li>{@link #acquire} (blocking paths: waits here when a pacing rule schedules the call) or
 *       {@link #tryAcquire} plus {@link #waitNanos} (reactive paths: the caller delays the call
 *       without blocking) returns a permit: {@code 0} means no rule applies (stop), a negative
 *       permit means refused ({@link #refusal} says how to answer), a positive one admitted. A
 *       resource whose rules read the call's arguments ({@link #needsArguments}) is decided where
 *       the arguments are known; the request, when given, answers rules that read its headers,
 *       query parameters or cookies;
 *   <li>an admitted call ends with {@link #release}, exactly once.
 * </ol>
 *
 * A new transport (an RPC framework, say) adds a path and a request kind, resolves with {@link
 * #resource}, carries the caller's origin and lane into a {@link SluiceContext}, passes its
 * arguments to {@link #acquire}, and maps {@link #refusal}'s verdict to its own failure or fallback
 * result. Implementations never throw.
 */
public class GovernanceHooks {
  /** Admits everything and records nothing. */
  public static final GovernanceHooks NOOP = new GovernanceHooks();

  /** No rule applies to the call. */
  public static final long UNGOVERNED = 0L;

  /**
   * The lane of a request the entry rules left untagged. An entry writes it like any lane, so the
   * hops after it know the decision was taken and do not draw again; routing treats it as no lane.
   */
  public static final String BASE_LANE = SluiceContext.BASE_LANE;

  /** Request kind: a {@code jakarta.servlet.http.HttpServletRequest}. */
  public static final int SERVLET_REQUEST = 0;

  /** Request kind: a Spring {@code ServerHttpRequest} (WebFlux, Spring Cloud Gateway). */
  public static final int REACTIVE_REQUEST = 1;

  /** Path: a Spring MVC route, decided on the request thread (arguments, request attributes). */
  public static final int SERVLET_ROUTE = 0;

  /** Path: a WebFlux handler route, decided on the event loop (request attributes; no waiting). */
  public static final int REACTIVE_ROUTE = 1;

  /** Path: a Spring Cloud Gateway route (request attributes; no waiting). */
  public static final int GATEWAY_ROUTE = 2;

  /** Path: a blocking HTTP client call, decided on the calling thread. */
  public static final int HTTP_CLIENT = 3;

  /** Path: a reactive HTTP client call (WebClient); no waiting. */
  public static final int REACTIVE_CLIENT = 4;

  /**
   * Path: a Dubbo provider's method, decided on the thread that runs the service (arguments;
   * waiting).
   */
  public static final int DUBBO_PROVIDER = 5;

  /** Path: a Dubbo consumer's call, decided on the calling thread (arguments; waiting). */
  public static final int DUBBO_CONSUMER = 6;

  private static final String[] NO_HEADERS = new String[0];

  protected GovernanceHooks() {}

  /**
   * An inbound request matched to a route.
   *
   * @param method the HTTP method, e.g. {@code GET}
   * @param route the route pattern as the web framework matched it, e.g. {@code /orders/{id}}
   * @param path {@link #SERVLET_ROUTE} or {@link #REACTIVE_ROUTE}
   */
  public Object inboundResource(String method, String route, int path) {
    return null;
  }

  /**
   * A resource by its full name, resolved on {@code path}; for transports that name calls
   * themselves. Returns null when nothing can govern it.
   */
  public Object resource(String name, int path) {
    return null;
  }

  /**
   * An RPC call as the advice holds it: the method's resource, named as Sentinel's Dubbo adapter
   * names it ({@code interface:method(paramType,...)}, e.g. {@code
   * com.example.HelloService:hello(java.lang.String)}), together with its service's (the
   * interface's name). Found by one lookup without allocating once seen; null when nothing can
   * govern it.
   *
   * <p>A call then takes two permits in turn, {@link #rpcAcquireService} and {@link
   * #rpcAcquireMethod}; a negative one means refused ({@link #rpcRefusalMessage}); an admitted call
   * ends with {@link #rpcRelease}, which releases both.
   *
   * @param path {@link #DUBBO_PROVIDER} or {@link #DUBBO_CONSUMER}
   */
  public Object rpcCall(Class<?> service, String method, Class<?>[] parameterTypes, int path) {
    return null;
  }

  /**
   * The context to make current while a provider serves {@code call} (its method as the entrance of
   * CHAIN rules), or null when nothing needs changing; see {@link #routeContext}.
   */
  public SluiceContext rpcRouteContext(Object call) {
    return null;
  }

  /**
   * The first permit of an RPC call ({@link #rpcCall}): its service's rules, in the current
   * thread's context; waits here when a pacing rule schedules the call. {@code args} are the call's
   * arguments, for hot-parameter rules.
   */
  public long rpcAcquireService(Object call, Object[] args) {
    return UNGOVERNED;
  }

  /**
   * The second permit of an RPC call: its method's rules. When they refuse, {@code servicePermit}
   * (what {@link #rpcAcquireService} admitted) is released here, so a refused call holds nothing.
   */
  public long rpcAcquireMethod(Object call, Object[] args, long servicePermit) {
    return UNGOVERNED;
  }

  /**
   * The message of the exception an RPC framework fails a refused call with (one of the two permits
   * negative): names Sluice, the kind of rule and the resource that refused it.
   */
  public String rpcRefusalMessage(Object call, long servicePermit, long methodPermit) {
    return "refused by Sluice";
  }

  /** The end of an admitted RPC call: releases both permits (either may be {@code 0}). */
  public void rpcRelease(Object call, long servicePermit, long methodPermit, Throwable error) {}

  /**
   * The context of an inbound RPC call from its attachments (Dubbo's, read as they arrived): the
   * caller's application and the lane, in the forms {@link SluiceContext#inbound} reads. Null,
   * without allocating, when they carry neither. The map is only read.
   */
  public SluiceContext rpcInboundContext(java.util.Map<String, Object> attachments) {
    return null;
  }

  /**
   * Whether any rule names an outbound resource. Clients whose request URI costs an allocation to
   * build check this first; when false, {@link #outboundResource} would return null anyway.
   */
  public boolean governsOutbound() {
    return false;
  }

  /**
   * An outbound HTTP call about to be sent, named by the URI's host, or by the logical service when
   * the call went through a load balancer.
   *
   * @param uri the request URI as sent
   * @param uriTemplate the caller's URI template (e.g. {@code http://h/orders/{id}}), or null when
   *     the client did not say; the path is then normalised
   * @param path {@link #HTTP_CLIENT} or {@link #REACTIVE_CLIENT}
   */
  public Object outboundResource(String method, URI uri, String uriTemplate, int path) {
    return null;
  }

  /** {@link #outboundResource(String, URI, String, int)} on the blocking client path. */
  public final Object outboundResource(String method, URI uri, String uriTemplate) {
    return outboundResource(method, uri, uriTemplate, HTTP_CLIENT);
  }

  /**
   * Whether any rule reads a call's arguments (a hot-parameter rule by {@code paramIdx}): the gate
   * in front of the advice where arguments are known, one field read.
   */
  public boolean readsArguments() {
    return false;
  }

  /**
   * Whether the resource's rules read the call's arguments: the decision then belongs where the
   * arguments are known ({@link #acquire(Object, Object[], Object, int)}).
   */
  public boolean needsArguments(Object resource) {
    return false;
  }

  /**
   * The context to make current while serving an inbound call to {@code resource} (the current one
   * with the resource as its entrance, for CHAIN rules), or null when nothing needs changing. The
   * caller restores the previous context when the call ends.
   */
  public SluiceContext routeContext(Object resource) {
    return null;
  }

  /** {@link #acquire(Object, Object[], Object, int)} with no arguments and no request. */
  public final long acquire(Object resource) {
    return acquire(resource, null, null, SERVLET_REQUEST);
  }

  /**
   * Asks the resource's rules for a permit, in the current thread's context (its origin and
   * entrance). Waits here when a pacing rule schedules the call for later: for blocking paths.
   *
   * @param args the call's arguments for hot-parameter rules by index, or null
   * @param request the inbound request whose attributes hot-parameter rules may read, or null
   * @param requestKind {@link #SERVLET_REQUEST} or {@link #REACTIVE_REQUEST}
   */
  public long acquire(Object resource, Object[] args, Object request, int requestKind) {
    return UNGOVERNED;
  }

  /**
   * As {@link #acquire(Object, Object[], Object, int)} without arguments, but never waits: an
   * admitted permit of a paced call has {@link #waitNanos} left to wait, which a reactive caller
   * spends without blocking (delaying the call's subscription).
   */
  public long tryAcquire(Object resource, Object request, int requestKind) {
    return UNGOVERNED;
  }

  /** For an admitted permit, the ns the call must still wait before it starts (0 = now). */
  public long waitNanos(Object resource, long permit) {
    return 0;
  }

  /** How to answer a call {@link #acquire} refused (negative permit). */
  public BlockVerdict refusal(Object resource, long permit) {
    return null;
  }

  /**
   * The end of an admitted call.
   *
   * @param status the HTTP status, 0 if unknown
   * @param error the exception the call ended with, or null
   */
  public void release(Object resource, long permit, int status, Throwable error) {}

  /**
   * Headers every outbound request made in the current context must carry (name, value pairs): the
   * lane in the forms it arrived in, and this application's name as its origin. Never null;
   * allocation-free (precomputed per context and application).
   */
  public String[] outboundHeaders() {
    SluiceContext context = SluiceContext.current();
    return context == null ? NO_HEADERS : context.outboundHeaders();
  }

  /**
   * Sets header {@code name} to {@code value} on a Spring reactive server request ({@code
   * ServerHttpRequest}, WebFlux or Spring Cloud Gateway) where it stands, replacing the header's
   * values, without rebuilding the request: written into the map under Spring's read-only view of
   * its headers (Reactor Netty's own request headers, or the copy an earlier {@code mutate()}
   * made), so the request's headers are not copied. Returns true when the write took and the
   * request now carries the value as the header's first; false when its headers cannot be written
   * in place, and the caller must rebuild the request with the header ({@code mutate()}). It does
   * not first read whether the request carries the value already: callers read the header through
   * Spring's typed API and call only when it does not. The no-op hooks always answer false.
   *
   * <p>The one place advice adds headers to a reactive request it passes on: the WebFlux entry (the
   * lane, when the request arrived without {@code x-sluice-lane}) and a gateway route (the outbound
   * headers, of which the lane is then already there).
   */
  public boolean writeRequestHeader(Object request, String name, String value) {
    return false;
  }

  /**
   * The lane an inbound request that arrived untagged gets from the lane document's entry rules: a
   * lane's tag, or {@link #BASE_LANE} when no lane takes it; null (at once) when no lane has entry
   * rules.
   *
   * @param kind {@link #SERVLET_REQUEST} or {@link #REACTIVE_REQUEST}
   */
  public String entryLane(Object request, int kind) {
    return null;
  }

  /**
   * The instances a load balancer may pick from for a call made in the current context: those of
   * the context's lane when the target has any, else the base (untagged) ones. Never allocates once
   * the list has been seen: decisions are precomputed per instance list.
   */
  public List<?> laneInstances(List<?> instances) {
    return instances;
  }

  /**
   * The providers a Dubbo call made in the current context may go to: among {@code routed} (what
   * Dubbo's routers left of the providers of the consumer's {@code directory}, a Dubbo {@code
   * Directory}), those of the context's lane when it has any, else the base (untagged) ones.
   * Precomputed per provider list; {@code routed} itself when no provider has a lane tag.
   */
  public List<?> rpcLaneInvokers(List<?> routed, Object directory) {
    return routed;
  }

  /**
   * A load balancer built an instance cache in this Spring {@code CacheManager}: the agent evicts a
   * service's entry from it when the registry changes the service ({@link #registryChanged}).
   */
  public void instanceCache(Object cacheManager) {}

  /**
   * The registry client applied a new instance list for {@code service} (Nacos's {@code
   * group@@name} or the bare name): cached copies of the old list are dropped.
   */
  public void registryChanged(String service) {}

  /** This instance's lane (the agent's {@code sluice.lane}), for its registry metadata; or null. */
  public String instanceLane() {
    return null;
  }

  /**
   * A Spring Cloud Gateway route as a resource (named by its id, as Sentinel's gateway adapter
   * names it), or null when nothing can govern it.
   */
  public Object gatewayResource(Object route) {
    return null;
  }

  /**
   * The HTTP status of a response object the agent cannot name: a Spring reactive server response
   * or WebClient {@code ClientResponse}, an Apache HttpCore 5 {@code HttpResponse}; 0 if unknown.
   */
  public int statusOf(Object response) {
    return 0;
  }

  /**
   * The JDK client's synthetic response for a refused call whose fallback asks for one ({@link
   * BlockVerdict#respondsOutbound()}): a {@code java.net.http.HttpResponse} whose body went through
   * the caller's {@code BodyHandler}. Typed {@code Object} because {@code java.net.http} is not
   * visible from the bootstrap class loader. Throws what the body handler throws; null without an
   * agent.
   */
  public Object jdkHttpResponse(BlockVerdict verdict, Object request, Object bodyHandler)
      throws Exception {
    return null;
  }

  /**
   * Spring Boot prepared its environment; {@code applicationName} is its {@code
   * spring.application.name} (null when unset). The agent learns the application name here when no
   * configuration named it.
   */
  public void springEnvironmentPrepared(String applicationName) {}
}
