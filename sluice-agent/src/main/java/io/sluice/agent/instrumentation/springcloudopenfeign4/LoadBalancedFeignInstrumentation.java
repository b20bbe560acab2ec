package io.sluice.agent.instrumentation.springcloudopenfeign4;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Spring Cloud OpenFeign 4.1+ with Spring Cloud LoadBalancer (Spring Cloud 2023.0 to 2025.1): a
 * load-balanced Feign call is governed where it still has its logical URL, so it is named by the
 * service like a load-balanced RestTemplate call, whichever instance it reaches. Feign clients with
 * a fixed {@code url} are governed by the HTTP client they use, named by host.
 */
public final class LoadBalancedFeignInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "spring-cloud-openfeign-4.1";
  }

  @Override
  public List<String> typeNames() {
    return List.of(
        "org.springframework.cloud.openfeign.loadbalancer.FeignBlockingLoadBalancerClient",
        "org.springframework.cloud.openfeign.loadbalancer.RetryableFeignBlockingLoadBalancerClient");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of("feign.Request", "feign.Response", "feign.MethodMetadata");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer.advice(
        named("execute").and(takesArguments(2)).and(takesArgument(0, named("feign.Request"))),
        "io.sluice.agent.instrumentation.springcloudopenfeign4.LoadBalancedFeignAdvice");
  }
}
