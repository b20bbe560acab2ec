package io.sluice.agent.instrumentation.dubbo3;

import static net.bytebuddy.matcher.ElementMatchers.isDeclaredBy;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Apache Dubbo 3.2 and 3.3, any protocol ({@code dubbo}, {@code tri}): a provider's methods and
 * interfaces are inbound resources ({@link ProviderInvokerAdvice}), a consumer's calls outbound
 * ones with the same names and carry the outbound attachments ({@link ConsumerInvocationAdvice}),
 * and a consumer's routed providers are narrowed to the call's lane ({@link ClusterListAdvice}).
 * Older Dubbo (3.0, 3.1, 2.x) lacks {@code RegisterTypeEnum} (added in 3.2) and is skipped with one
 * log line.
 */
public final class DubboInstrumentation implements SluiceInstrumentation {
  @Override
  public String name() {
    return "dubbo-3.2";
  }

  @Override
  public String supportedVersions() {
    return "Apache Dubbo 3.2 and 3.3";
  }

  @Override
  public List<String> typeNames() {
    return List.of(
        "org.apache.dubbo.rpc.proxy.AbstractProxyInvoker",
        "org.apache.dubbo.rpc.proxy.InvocationUtil",
        "org.apache.dubbo.rpc.cluster.support.AbstractClusterInvoker");
  }

  @Override
  public List<String> requiredClasses() {
    return List.of(
        "org.apache.dubbo.rpc.AsyncRpcResult",
        "org.apache.dubbo.rpc.RpcInvocation",
        // Added in Dubbo 3.2: tells 3.2+ from 3.0/3.1, which are skipped.
        "org.apache.dubbo.common.constants.RegisterTypeEnum");
  }

  @Override
  public AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer) {
    return transformer
        .advice(
            isDeclaredBy(named("org.apache.dubbo.rpc.proxy.AbstractProxyInvoker"))
                .and(named("invoke"))
                .and(takesArguments(1)),
            "io.sluice.agent.instrumentation.dubbo3.ProviderInvokerAdvice")
        .advice(
            isDeclaredBy(named("org.apache.dubbo.rpc.proxy.InvocationUtil"))
                .and(isStatic())
                .and(named("invoke"))
                .and(takesArguments(2)),
            "io.sluice.agent.instrumentation.dubbo3.ConsumerInvocationAdvice")
        .advice(
            isDeclaredBy(named("org.apache.dubbo.rpc.cluster.support.AbstractClusterInvoker"))
                .and(named("list"))
                .and(takesArguments(1)),
            "io.sluice.agent.instrumentation.dubbo3.ClusterListAdvice");
  }
}
