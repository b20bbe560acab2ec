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
import java.util.ArrayList;
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
    return governor.rpcCall(Greeter.class, name, types, GovernanceHooks.DUBBO_PROVIDER);
  }

  /** Both permits of one call, as the advice takes them; {service, method}. */
  private long[] acquire(Object call, Object... args) {
    long service = governor.rpcAcquireService(call, args);
    long method = service < 0 ? 0 : governor.rpcAcquireMethod(call, args, service);
    return new long[] {service, method};
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
    assertThat(((RpcCall) method("ping")).service)
        .hasToString(greeter + " (Dubbo provider method)");
    assertThat(
            ((RpcCall)
                    governor.rpcCall(Greeter.class, "ping", null, GovernanceHooks.DUBBO_CONSUMER))
                .service)
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
        governor.rpcCall(
            Greeter.class, "hello", new Class<?>[] {String.class}, GovernanceHooks.DUBBO_CONSUMER);

    assertThat(provider).isNotSameAs(consumer);
    long[] refused = acquire(provider, "x");
    assertThat(refused[1]).isNegative();
    assertThat(acquire(consumer, "x")[1]).isNegative();
    assertThat(governor.rpcRefusalMessage(provider, refused[0], refused[1]))
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

    assertThat(acquire(resource, "hot", 1)[1]).isPositive();
    long[] refused = acquire(resource, "hot", 2);
    assertThat(refused[1]).isNegative();
    assertThat(governor.rpcRefusalMessage(resource, refused[0], refused[1]))
        .isEqualTo("refused by Sluice: param-flow rule on " + name);
    assertThat(acquire(resource, "cold", 3)[1]).isPositive();
  }

  @Test
  void governsTheInterfaceAndThenTheMethodAndReleasesBoth() throws Exception {
    String service = Greeter.class.getName();
    // One call at a time on the interface: a permit not released would refuse the next call.
    governor.apply(
        RuleType.FLOW,
        "[{\"resource\":\""
            + service
            + "\",\"grade\":0,\"count\":1},{\"resource\":\""
            + service
            + ":hello(java.lang.String)\",\"count\":1000}]");
    Object call = method("hello", String.class);

    long[] first = acquire(call, "a");
    assertThat(first[0]).isPositive();
    assertThat(first[1]).isPositive();
    long[] concurrent = acquire(call, "b");
    assertThat(concurrent[0]).isNegative();
    assertThat(governor.rpcRefusalMessage(call, concurrent[0], concurrent[1]))
        .isEqualTo("refused by Sluice: flow rule on " + service);

    governor.rpcRelease(call, first[0], first[1], null);
    long[] next = acquire(call, "c");
    assertThat(next[0]).isPositive();
    governor.rpcRelease(call, next[0], next[1], null);
  }

  @Test
  void givesTheInterfacesPermitBackWhenTheMethodRefuses() throws Exception {
    String service = Greeter.class.getName();
    governor.apply(
        RuleType.FLOW,
        "[{\"resource\":\""
            + service
            + "\",\"grade\":0,\"count\":1},{\"resource\":\""
            + service
            + ":hello(java.lang.String)\",\"count\":0}]");
    Object refusedCall = method("hello", String.class);
    Object otherCall = method("hello", String.class, int.class);

    long[] refused = acquire(refusedCall, "a");
    assertThat(refused[0]).isPositive();
    assertThat(refused[1]).isNegative();
    assertThat(governor.rpcRefusalMessage(refusedCall, refused[0], refused[1]))
        .isEqualTo("refused by Sluice: flow rule on " + service + ":hello(java.lang.String)");
    // The refused call holds nothing: the interface's single slot is free for another method.
    long[] admitted = acquire(otherCall, "b", 1);
    assertThat(admitted[0]).isPositive();
    governor.rpcRelease(otherCall, admitted[0], admitted[1], null);
  }

  @Test
  void remembersAMethodLeftUngovernedByAFullTableWithoutNamingItAgain() {
    List<String> named = new ArrayList<>();
    RpcResources full =
        new RpcResources(
            name -> {
              named.add(name);
              return null;
            });

    for (int i = 0; i < 3; i++) {
      assertThat(full.call(Greeter.class, "hello", new Class<?>[] {String.class})).isNull();
    }

    assertThat(named)
        .containsExactly(
            Greeter.class.getName(), Greeter.class.getName() + ":hello(java.lang.String)");
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
