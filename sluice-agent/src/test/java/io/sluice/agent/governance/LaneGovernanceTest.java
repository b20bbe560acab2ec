package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.logging.AgentLog;
import io.sluice.flow.lane.InvalidLanesException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LaneGovernanceTest {
  private final LaneGovernance lanes =
      new LaneGovernance("gray", AgentLog.toStream(System.err, AgentLog.Level.WARN));

  @Test
  void readsAnInstancesTagFromSluiceMseOrOpenSergoMetadata() {
    assertThat(ServiceInstanceTags.tagOf(Map.of("sluice.lane", "gray"))).isEqualTo("gray");
    assertThat(ServiceInstanceTags.tagOf(Map.of("alicloud.service.tag", "gray"))).isEqualTo("gray");
    assertThat(ServiceInstanceTags.tagOf(Map.of("traffic.opensergo.io/lane", "gray")))
        .isEqualTo("gray");
    assertThat(ServiceInstanceTags.tagOf(Map.of("version", "2"))).isNull();
    assertThat(ServiceInstanceTags.tagOf(Map.of())).isNull();
  }

  @Test
  void keepsTheLastGoodLanesWhenADocumentIsInvalid() throws Exception {
    lanes.apply("{\"lanes\":[{\"name\":\"a\",\"tag\":\"gray\",\"percentage\":100}]}");
    assertThatThrownBy(() -> lanes.apply("{\"lanes\":[{\"name\":\"a\"}]}"))
        .isInstanceOf(InvalidLanesException.class);
    assertThat(lanes.lanes().lanes()).hasSize(1);
    assertThat(lanes.instanceLane()).isEqualTo("gray");
  }

  @Test
  void routesASwitchedOffLanesRequestsAsBase() throws Exception {
    lanes.apply("{\"lanes\":[{\"name\":\"a\",\"tag\":\"gray\",\"enabled\":false}]}");
    java.util.List<Object> instances = new java.util.ArrayList<>(java.util.List.of("plain"));
    try (SluiceContext.Scope scope = SluiceContext.attach(SluiceContext.of(null, "gray"))) {
      // Objects that are not service instances have no tag: all base.
      assertThat(lanes.laneInstances(instances)).isSameAs(instances);
    }
  }

  @Test
  void readsQueryParametersFromTheRawQueryString() {
    assertThat(ServletRequestReader.queryParameter("a=1&region=eu-west&b", "region"))
        .isEqualTo("eu-west");
    assertThat(ServletRequestReader.queryParameter("a=1&b", "b")).isEqualTo("");
    assertThat(ServletRequestReader.queryParameter("x%20y=z+w", "x y")).isEqualTo("z w");
    assertThat(ServletRequestReader.queryParameter("a=1", "c")).isNull();
    assertThat(ServletRequestReader.queryParameter(null, "c")).isNull();
  }
}
