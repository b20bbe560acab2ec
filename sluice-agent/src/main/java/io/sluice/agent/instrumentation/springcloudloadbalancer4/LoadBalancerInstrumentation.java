package io.sluice.agent.instrumentation.springcloudloadbalancer4;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.net.URI;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Spring Cloud LoadBalancer 4.1+ (Spring Cloud 2023.0 to 2025.1): lane routing for every client
 * that picks an instance through it — load-balanced {@code RestTemplate}, {@code RestClient} and
 * {@code WebClient}, OpenFeign, and Spring Cloud Gateway's {@code lb://} routes. Both built-in
 * balancers (round robin, the default, and random) pick in a private {@code
 * getInstanceResponse(List)}; the list is swapped there for the request's lane. The lane is the
 * current context's: the calling thread's for blocking clients (the executors carry it when
 * discovery runs on another thread), and on a gateway the one its entry hook made current while the
 * request's pipeline is subscribed.
 *
 * <p>{@code LoadBalancerUriTools.reconstructURI}, where every client turns the logical URI into an
 * instance's, leaves the pair for the client that sends it, so calls are named by the service.
 *
 * <p>The caching supplier's constructor hands the agent its cache manager, so the registry client's
 * pushes evict a service's cached list at once (see the nacos-client instrumentation) rather than
 * after the cache's time to live (35 s by default).
 */
public final class LoadBalancerInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "spring-cloud-loadbalancer-4.1";
  }

  @Override
  public List<String> typeNames() {
    return List.of(
        "org.springframework.cloud.loadbalancer.core.RoundRobinLoadBalancer",
        "org.springframework.cloud.loadbalancer.core.RandomLoadBalancer",
        "org.springframework.cloud.client.loadbalancer.LoadBalancerUriTools",
        "org.springframework.cloud.loadbalancer.core.CachingServiceInstanceListSupplier");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of(
        "org.springframework.cloud.client.ServiceInstance",
        // Added in spring-cloud-loadbalancer 4.1 (Spring Cloud 2023.0): older ones are skipped.
        "org.springframework.cloud.loadbalancer.core.SubsetServiceInstanceListSupplier");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer
        .advice(
            named("getInstanceResponse").and(takesArguments(1)).and(takesArgument(0, List.class)),
            "io.sluice.agent.instrumentation.springcloudloadbalancer4.LaneInstancesAdvice")
        .advice(
            named("reconstructURI").and(takesArguments(2)).and(takesArgument(1, URI.class)),
            "io.sluice.agent.instrumentation.springcloudloadbalancer4.LogicalTargetAdvice")
        .advice(
            isConstructor()
                .and(takesArguments(2))
                .and(takesArgument(1, named("org.springframework.cache.CacheManager"))),
            "io.sluice.agent.instrumentation.springcloudloadbalancer4.InstanceCacheAdvice");
  }
}
