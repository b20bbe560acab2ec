package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.logging.AgentLog;
import io.sluice.agent.rules.RuleType;
import io.sluice.flow.FlowRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** RPC methods and services as resources, named as Sentinel's Dubbo adapter names them. */
class RpcResourcesTest {
  /** A service interface with overloads, as a Dubbo application declares one. */
  interface Greeter {
    String hello(String name);

    String hello(String name, int times);

    String hello(List<String>[] names, long id);
  }

  private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
  private final FlowGovernor governor =
      new FlowGovernor(
          FlowRegistry.builder().build(),
          FlowGovernor.verdicts(429, 503, 1),
          name -> {},
          AgentLog.toStream(
              new PrintStream(logBytes, true, StandardCharsets.UTF_8), AgentLog.Level.INFO));

  @AfterEach
  void clearTheThread() {
    SluiceContext.restore(null);
  }

  private Object method(String name, Class<?>... types) {
    return governor.rpcMethodResource(Greeter.class, name, types, GovernanceHooks.DUBBO_PROVIDER);
  }

  @Test
  void namesAMethodByItsInterfaceNameAndParameterTypesAndTheServiceByItsInterface() {
    String greeter = Greeter.class.getName();

    assertThat(method("hello", String.class))
        .hasToString(greeter + ":hello(java.lang.String) (Dubbo provider method)");
    assertThat(method("hello", String.class, int.class))
        .hasToString(greeter + ":hello(java.lang.String,int) (Dubbo provider method)");
    assertThat(method("hello", List[].class, long.class))
        .hasToString(greeter + ":hello([Ljava.util.List;,long) (Dubbo provider method)");
    assertThat(method("ping")).hasToString(greeter + ":ping() (Dubbo provider method)");
    assertThat(governor.rpcServiceResource(Greeter.class, GovernanceHooks.DUBBO_CONSUMER))
        .hasToString(greeter + " (Dubbo consumer call)");
  }

  @Test
  void findsTheSameHandleForEachOverloadWithoutMixingThemUp() {
    Object one = method("hello", String.class);
    Object two = method("hello", String.class, int.class);

    assertThat(method("hello", new Class<?>[] {String.class})).isSameAs(one);
    assertThat(method("hello", String.class, int.class)).isSameAs(two);
    assertThat(one).isNotSameAs(two);
  }

  @Test
  void keepsProviderAndConsumerResourcesApart() throws Exception {
    String name = Greeter.class.getName() + ":hello(java.lang.String)";
    governor.apply(RuleType.FLOW, "[{\"resource\":\"" + name + "\",\"count\":0}]");

    Object provider = method("hello", String.class);
    Object consumer =
        governor.rpcMethodResource(
            Greeter.class, "hello", new Class<?>[] {String.class}, GovernanceHooks.DUBBO_CONSUMER);

    assertThat(provider).isNotSameAs(consumer);
    long refused = governor.acquire(provider, new Object[] {"x"}, null, 0);
    assertThat(refused).isNegative();
    assertThat(governor.acquire(consumer, new Object[] {"x"}, null, 0)).isNegative();
    assertThat(governor.refusalMessage(provider, refused))
        .isEqualTo("refused by Sluice: flow rule on " + name);
  }

  @Test
  void limitsOneArgumentValueByItsParameterIndex() throws Exception {
    String name = Greeter.class.getName() + ":hello(java.lang.String,int)";
    governor.apply(
        RuleType.PARAM_FLOW,
        "[{\"resource\":\""
            + name
            + "\",\"paramIdx\":0,\"count\":100,\"paramFlowItemList\":"
            + "[{\"object\":\"hot\",\"classType\":\"java.lang.String\",\"count\":1}]}]");
    Object resource = method("hello", String.class, int.class);

    assertThat(governor.acquire(resource, new Object[] {"hot", 1}, null, 0)).isPositive();
    long refused = governor.acquire(resource, new Object[] {"hot", 2}, null, 0);
    assertThat(refused).isNegative();
    assertThat(governor.refusalMessage(resource, refused))
        .isEqualTo("refused by Sluice: param-flow rule on " + name);
    assertThat(governor.acquire(resource, new Object[] {"cold", 3}, null, 0)).isPositive();
  }

  @Test
  void saysARuleOnAnRpcMethodTakesEffectOnceTheMethodIsCalled() throws Exception {
    String name = Greeter.class.getName() + ":hello(java.lang.String)";
    governor.apply(RuleType.FLOW, "[{\"resource\":\"" + name + "\",\"count\":5}]");
    method("hello", String.class);

    assertThat(logBytes.toString(StandardCharsets.UTF_8))
        .contains(name)
        .contains("Dubbo provider method");
  }

  @Test
  void saysAFallbackDoesNotAnswerDubboCalls() throws Exception {
    String name = Greeter.class.getName() + ":hello(java.lang.String)";
    method("hello", String.class);
    governor.apply(
        RuleType.FALLBACKS,
        "{\"fallbacks\":[{\"resource\":\"" + name + "\",\"status\":200,\"body\":\"x\"}]}");

    assertThat(logBytes.toString(StandardCharsets.UTF_8))
        .contains("fallback for " + name)
        .contains("not for Dubbo calls, which fail with an RpcException when refused");
  }
}
