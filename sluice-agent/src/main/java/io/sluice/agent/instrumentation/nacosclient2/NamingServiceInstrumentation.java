package io.sluice.agent.instrumentation.nacosclient2;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * nacos-client 2.x and 3.x registration, which Spring Cloud Alibaba discovery and Dubbo's Nacos
 * registry use as well as plain applications: every {@code registerInstance} overload ends in the
 * one taking an {@code Instance}, where the agent adds {@code sluice.lane} to the instance's
 * metadata when the agent is configured with a lane ({@code sluice.lane}). Heartbeats and the
 * client's re-registration after a reconnect reuse the same instance, so the tag stays.
 *
 * <p>Every instance list the client applies to its cache (a push from the registry, or a query's
 * answer) passes {@code ServiceInfoHolder.processServiceInfo}; after it, the agent evicts the
 * service from the load balancers' caches, so a removed instance stops getting picks at once.
 */
public final class NamingServiceInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "nacos-client-2.0";
  }

  @Override
  public List<String> typeNames() {
    return List.of(
        "com.alibaba.nacos.client.naming.NacosNamingService",
        "com.alibaba.nacos.client.naming.cache.ServiceInfoHolder");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of("com.alibaba.nacos.api.naming.pojo.Instance");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer
        .advice(
            named("registerInstance")
                .and(takesArguments(3))
                .and(takesArgument(2, named("com.alibaba.nacos.api.naming.pojo.Instance"))),
            "io.sluice.agent.instrumentation.nacosclient2.RegisterInstanceAdvice")
        .advice(
            named("batchRegisterInstance").and(takesArguments(3)).and(takesArgument(2, List.class)),
            "io.sluice.agent.instrumentation.nacosclient2.BatchRegisterInstanceAdvice")
        .advice(
            named("processServiceInfo")
                .and(takesArguments(1))
                .and(takesArgument(0, named("com.alibaba.nacos.api.naming.pojo.ServiceInfo"))),
            "io.sluice.agent.instrumentation.nacosclient2.ServiceInfoAdvice");
  }
}
