package io.sluice.agent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentConfigTest {
  @Test
  void agentArgumentsWinOverSystemPropertiesWhichWinOverTheEnvironment() {
    AgentConfig config =
        AgentConfig.resolve(
            "lane=from-args",
            Map.of("sluice.lane", "from-property", "sluice.namespace", "ns-property"),
            Map.of(
                "SLUICE_LANE", "from-env",
                "SLUICE_NAMESPACE", "ns-env",
                "SLUICE_LOG_LEVEL", "debug"));

    assertThat(config.lane()).isEqualTo("from-args");
    assertThat(config.sourceOf(AgentConfig.LANE)).isEqualTo("agent argument lane");
    assertThat(config.namespace()).isEqualTo("ns-property");
    assertThat(config.logLevel()).isEqualTo("debug");
    assertThat(config.sourceOf(AgentConfig.LOG_LEVEL)).isEqualTo("SLUICE_LOG_LEVEL");
  }

  @Test
  void aServerListMayContinueAcrossCommasInTheAgentArguments() {
    AgentConfig config =
        AgentConfig.resolve(
            "server.addr=10.0.0.1:8848,10.0.0.2:8848,app.name=orders", Map.of(), Map.of());

    assertThat(config.serverAddresses()).containsExactly("10.0.0.1:8848", "10.0.0.2:8848");
    assertThat(config.applicationName()).isEqualTo("orders");
  }

  @Test
  void environmentNamesAreUpperCaseWithUnderscores() {
    assertThat(AgentConfig.environmentName("server.addr")).isEqualTo("SLUICE_SERVER_ADDR");
    assertThat(AgentConfig.environmentName("flow.block.status"))
        .isEqualTo("SLUICE_FLOW_BLOCK_STATUS");
  }

  @Test
  void fallsBackToSpringsOwnApplicationNameSettings() {
    assertThat(
            AgentConfig.resolve(null, Map.of("spring.application.name", "prop-app"), Map.of())
                .applicationName())
        .isEqualTo("prop-app");
    assertThat(
            AgentConfig.resolve(null, Map.of(), Map.of("SPRING_APPLICATION_NAME", "env-app"))
                .applicationName())
        .isEqualTo("env-app");
    assertThat(
            AgentConfig.resolve(
                    "app.name=mine", Map.of("spring.application.name", "prop-app"), Map.of())
                .applicationName())
        .isEqualTo("mine");
    assertThat(AgentConfig.resolve(null, Map.of(), Map.of()).applicationName()).isNull();
  }

  @Test
  void defaultsAnswerWithTheConventionalStatuses() {
    AgentConfig config = AgentConfig.resolve("", Map.of(), Map.of());

    assertThat(config.flowBlockStatus()).isEqualTo(429);
    assertThat(config.degradeBlockStatus()).isEqualTo(503);
    assertThat(config.retryAfterSeconds()).isEqualTo(1);
    assertThat(config.namespace()).isEmpty();
    assertThat(config.serverAddresses()).isEmpty();
    assertThat(config.enabled()).isTrue();
  }

  @Test
  void thePublicNamespaceIsTheDefaultOne() {
    assertThat(AgentConfig.resolve("namespace=public", Map.of(), Map.of()).namespace()).isEmpty();
  }

  @Test
  void rejectsAnUnknownArgumentAndAnOutOfRangeStatusWithTheirSource() {
    assertThatThrownBy(() -> AgentConfig.resolve("sever.addr=x", Map.of(), Map.of()))
        .hasMessageContaining("unknown agent argument 'sever.addr'");
    AgentConfig config =
        AgentConfig.resolve(null, Map.of("sluice.flow.block.status", "42"), Map.of());
    assertThatThrownBy(config::flowBlockStatus)
        .hasMessageContaining("between 100 and 599")
        .hasMessageContaining("-Dsluice.flow.block.status");
  }

  @Test
  void listsDisabledInstrumentations() {
    assertThat(
            AgentConfig.resolve(
                    null,
                    Map.of("sluice.instrumentation.disabled", "java-executors java-http-client"),
                    Map.of())
                .disabledInstrumentations())
        .isEqualTo(List.of("java-executors", "java-http-client"));
  }

  @Test
  void turnsOnOptInInstrumentationsAndTheWeaveCacheCanBeTurnedOff() {
    AgentConfig defaults = AgentConfig.resolve(null, Map.of(), Map.of());
    assertThat(defaults.enabledInstrumentations()).isEmpty();
    assertThat(defaults.weaveCache()).isTrue();

    AgentConfig config =
        AgentConfig.resolve(
            "instrumentation.enabled=java-thread,weave.cache=false", Map.of(), Map.of());
    assertThat(config.enabledInstrumentations()).containsExactly("java-thread");
    assertThat(config.weaveCache()).isFalse();
  }

  @Test
  void takesConfigCenterCredentialsFromAnySourceAndNeedsBothNameAndPassword() {
    AgentConfig config =
        AgentConfig.resolve(
            "username=agent",
            Map.of("sluice.password", "s3cret"),
            Map.of("SLUICE_ACCESS_TOKEN", "t"));
    assertThat(config.credentials().username()).isEqualTo("agent");
    assertThat(config.credentials().password()).isEqualTo("s3cret");
    assertThat(config.credentials().accessToken()).isEqualTo("t");
    assertThat(config.credentials().toString()).doesNotContain("s3cret");
    assertThat(AgentConfig.resolve(null, Map.of(), Map.of()).credentials().username()).isNull();

    assertThatThrownBy(() -> AgentConfig.resolve("username=agent", Map.of(), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("username (from agent argument username) is set without password");
  }
}
