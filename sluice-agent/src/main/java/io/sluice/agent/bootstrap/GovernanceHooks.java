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
 *   <li>{@code inboundResource}/{@code outboundResource} resolve the call to a resource handle, or
 *       null when nothing can govern it (the advice then stops);
 *   <li>{@link #acquire} returns a permit: {@code 0} means no rule applies (stop), a negative
 *       permit means refused ({@link #refusal} says how to answer), a positive one admitted;
 *   <li>an admitted call ends with {@link #release}, exactly once.
 * </ol>
 *
 * Implementations never throw.
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

  /** {@link #entryLane} for a {@code jakarta.servlet.http.HttpServletRequest}. */
  public static final int SERVLET_REQUEST = 0;

  /** {@link #entryLane} for a Spring {@code ServerHttpRequest} (WebFlux, Spring Cloud Gateway). */
  public static final int REACTIVE_REQUEST = 1;

  private static final String[] NO_HEADERS = new String[0];

  protected GovernanceHooks() {}

  /**
   * An inbound request matched to a route.
   *
   * @param method the HTTP method, e.g. {@code GET}
   * @param route the route pattern as the web framework matched it, e.g. {@code /orders/{id}}
   */
  public Object inboundResource(String method, String route) {
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
   * An outbound HTTP call about to be sent.
   *
   * @param uri the request URI as sent
   * @param uriTemplate the caller's URI template (e.g. {@code http://h/orders/{id}}), or null when
   *     the client did not say; the path is then normalised
   */
  public Object outboundResource(String method, URI uri, String uriTemplate) {
    return null;
  }

  /**
   * Asks the resource's rules for a permit, in the current thread's context (its origin). Waits
   * here when a pacing rule schedules the call for later.
   */
  public long acquire(Object resource) {
    return UNGOVERNED;
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
   * Headers every outbound request made in the current context must carry (name, value pairs); the
   * lanes feature extends this. Never null; empty (and allocation-free) without a context.
   */
  public String[] outboundHeaders() {
    SluiceContext context = SluiceContext.current();
    return context == null ? NO_HEADERS : context.outboundHeaders();
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

  /** The HTTP status of a reactive server response (a Spring {@code ServerHttpResponse}), or 0. */
  public int statusOf(Object response) {
    return 0;
  }

  /**
   * Spring Boot prepared its environment; {@code applicationName} is its {@code
   * spring.application.name} (null when unset). The agent learns the application name here when no
   * configuration named it.
   */
  public void springEnvironmentPrepared(String applicationName) {}
}
