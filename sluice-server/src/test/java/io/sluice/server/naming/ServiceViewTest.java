package io.sluice.server.naming;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.sluice.server.testing.ManualClock;
import java.nio.charset.StandardCharsets;
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

  @Test
  void keepsADirectCopyOnlyOfTheLargeRenderingsItCachesAndDropsItWithThem() {
    for (int i = 1; i <= 8; i++) {
      register("10.0.0." + i, "A");
    }
    ServiceView view = registry.viewOrEmpty(service);
    ServiceInfoJson all = view.serviceInfo("", false, false);
    assertThat(all.utf8().length).isGreaterThanOrEqualTo(ServiceInfoJson.MIN_SHARED_BYTES);

    ByteBuf direct = all.asLastMember();
    assertThat(direct.isDirect()).isTrue();
    assertThat(ByteBufUtil.getBytes(direct))
        .isEqualTo(
            (new String(all.utf8(), StandardCharsets.UTF_8) + "}")
                .getBytes(StandardCharsets.UTF_8));
    assertThat(view.serviceInfo("", false, false).asLastMember()).isSameAs(direct);
    direct.release(); // nobody may free what others still send: releasing does nothing
    assertThat(direct.refCnt()).isPositive();
    assertThat(direct.getByte(0)).isEqualTo((byte) '{');

    // Past its bound of 64 cluster filters the view renders without keeping: no direct copy.
    for (int i = 0; i < 64; i++) {
      assertThat(view.serviceInfo("A,f" + i, false, false).asLastMember()).isNotNull();
    }
    assertThat(view.serviceInfo("A,more", false, false).asLastMember()).isNull();
    // A small rendering is cheaper to copy than to refer to.
    assertThat(
            registry
                .viewOrEmpty(ServiceKey.of("public", "G", "none"))
                .serviceInfo("", false, false)
                .asLastMember())
        .isNull();

    view.forgetRenderingsIfIdle();
    view.forgetRenderingsIfIdle();
    assertThat(view.serviceInfo("", false, false).asLastMember()).isNotSameAs(direct);
  }
}
