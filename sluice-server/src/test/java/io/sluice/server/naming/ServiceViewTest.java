package io.sluice.server.naming;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.testing.ManualClock;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceViewTest {
  private final ServiceRegistry registry = new ServiceRegistry(new ManualClock());
  private final ServiceKey service = ServiceKey.of("public", "G", "orders");

  private void register(String ip, String cluster) {
    // One connection holds one instance per service, as in Nacos 2: one connection per address.
    registry.register(
        "conn-" + ip,
        service,
        InstanceValidator.instance(
            service, null, ip, 80, null, null, null, true, cluster, Map.of("lane", "gray")));
  }

  @Test
  void rendersEachFilterOnceAndSharesTheBytesBetweenQueries() throws Exception {
    register("10.0.0.1", "A");
    register("10.0.0.2", "B");
    ServiceView view = registry.viewOrEmpty(service);

    byte[] all = view.serviceInfoUtf8("", false, false);
    byte[] onlyA = view.serviceInfoUtf8("A", false, false);

    assertThat(view.serviceInfoUtf8(null, false, false)).isSameAs(all);
    assertThat(view.serviceInfoUtf8("A", false, false)).isSameAs(onlyA);
    assertThat(view.serviceInfoUtf8("", true, false)).isNotSameAs(all);
    JsonNode json = new ObjectMapper().readTree(all);
    assertThat(json.get("name").asText()).isEqualTo("orders");
    assertThat(json.get("hosts")).hasSize(2);
    assertThat(json.get("hosts").get(0).get("metadata").get("lane").asText()).isEqualTo("gray");
    assertThat(new ObjectMapper().readTree(onlyA).get("hosts")).hasSize(1);
    assertThat(new ObjectMapper().readTree(view.serviceInfoUtf8("", false, true)).get("name"))
        .hasToString("\"G@@orders\"");
    assertThat(view.serviceInfoJson("", false, false)).isEqualTo(new String(all, "UTF-8"));
  }

  @Test
  void forgetsItsRenderingsAfterASweepWithoutQueriesAndRendersThemAgainOnDemand() {
    register("10.0.0.1", "A");
    ServiceView view = registry.viewOrEmpty(service);
    byte[] first = view.serviceInfoUtf8("", false, false);
    byte[] filtered = view.serviceInfoUtf8("A", false, false);

    view.forgetRenderingsIfIdle(); // used since the last sweep: kept
    assertThat(view.serviceInfoUtf8("", false, false)).isSameAs(first);
    view.forgetRenderingsIfIdle(); // used again: kept
    view.forgetRenderingsIfIdle(); // idle: dropped

    byte[] again = view.serviceInfoUtf8("", false, false);
    assertThat(again).isNotSameAs(first).isEqualTo(first);
    assertThat(view.serviceInfoUtf8("A", false, false)).isNotSameAs(filtered).isEqualTo(filtered);
  }
}
