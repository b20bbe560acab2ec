package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.agent.bootstrap.SluiceContext;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A Dubbo provider's call context, read from the attachments as Dubbo decoded them. */
class DubboAttachmentsTest {
  private static SluiceContext contextOf(Object... pairs) {
    Map<String, Object> attachments = new HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      attachments.put((String) pairs[i], pairs[i + 1]);
    }
    return DubboAttachments.contextOf(attachments);
  }

  @Test
  void takesTheCallerFromSluiceThenSentinelThenDubbosOwnAttachment() {
    assertThat(
            contextOf(
                    "x-sluice-origin", "orders",
                    "dubboApplication", "sentinel-app",
                    "remote.application", "dubbo-app")
                .origin())
        .isEqualTo("orders");
    assertThat(
            contextOf("dubboApplication", "sentinel-app", "remote.application", "dubbo-app")
                .origin())
        .isEqualTo("sentinel-app");
    assertThat(contextOf("remote.application", "dubbo-app").origin()).isEqualTo("dubbo-app");
  }

  @Test
  void sharesOneContextPerCallerForCallsWithoutALane() {
    assertThat(contextOf("x-sluice-origin", "orders"))
        .isSameAs(contextOf("x-sluice-origin", "orders", "timeout", "5000"));
  }

  @Test
  void sharesOneContextPerLaneForCallsInALaneFromACallerThatDoesNotNameItself() {
    SluiceContext gray = contextOf("x-sluice-lane", "gray", "timeout", "5000");

    assertThat(gray.origin()).isNull();
    assertThat(gray.lane()).isEqualTo("gray");
    assertThat(contextOf("x-sluice-lane", new String("gray"))).isSameAs(gray);
  }

  @Test
  void sharesOneContextPerCallerAndLaneForCallsFromAGovernedConsumer() {
    assertThat(contextOf("x-sluice-origin", "a", "x-sluice-lane", "gray"))
        .isSameAs(contextOf("x-sluice-origin", "a", "x-sluice-lane", new String("gray")));
  }

  @Test
  void readsTheLaneInEachFormItMayArriveIn() {
    SluiceContext sluice = contextOf("x-sluice-origin", "a", "x-sluice-lane", "gray");
    assertThat(sluice.lane()).isEqualTo("gray");
    assertThat(sluice.origin()).isEqualTo("a");
    assertThat(contextOf("x-mse-tag", "blue").lane()).isEqualTo("blue");
    assertThat(contextOf("baggage", "k=v,sluice-lane=green").lane()).isEqualTo("green");
    assertThat(contextOf("x-mse-tag", "gray").outboundHeaders())
        .containsExactly("x-sluice-lane", "gray", "x-mse-tag", "gray");
  }

  @Test
  void ignoresAttachmentsThatAreNotStringsAndCallsThatCarryNothing() {
    assertThat(contextOf("x-sluice-origin", 42, "x-sluice-lane", new Object())).isNull();
    assertThat(contextOf("timeout", "5000")).isNull();
    assertThat(DubboAttachments.contextOf(Map.of())).isNull();
    assertThat(DubboAttachments.contextOf(null)).isNull();
  }
}
