package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.logging.AgentLog;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A Dubbo consumer's providers narrowed to the call's lane. Providers are stand-ins whose URL
 * parameters the tag reader reads as it reads a Dubbo {@code URL}'s (the real invokers run in
 * DubboIT).
 */
class DubboLaneRoutingTest {
  /** A stand-in for a Dubbo {@code URL}: public {@code getParameter(String)}. */
  public static final class Url {
    private final Map<String, String> parameters;

    Url(Map<String, String> parameters) {
      this.parameters = parameters;
    }

    public String getParameter(String key) {
      return parameters.get(key);
    }
  }

  /** A provider: its name and its URL. */
  record Provider(String name, Url url) {}

  private final LaneGovernance lanes =
      new LaneGovernance(
          null,
          new RequestReaders(),
          provider -> DubboInvokerTags.tagOfUrl(((Provider) provider).url()),
          AgentLog.toStream(new PrintStream(OutputStream.nullOutputStream()), AgentLog.Level.WARN));

  private final Provider base1 = provider("base1", Map.of());
  private final Provider base2 = provider("base2", Map.of("sluice.lane", "base"));
  private final Provider gray = provider("gray", Map.of("sluice.lane", "gray"));
  private final Provider mse = provider("mse", Map.of("alicloud.service.tag", "blue"));
  private final List<Provider> all = List.of(base1, base2, gray, mse);

  @AfterEach
  void clearTheThread() {
    SluiceContext.restore(null);
  }

  @Test
  void sendsAnUntaggedCallOnlyToBaseProviders() {
    assertThat(route(all, all)).containsExactly(base1, base2);
  }

  @Test
  void sendsATaggedCallToItsLaneAndFallsBackToBaseWhenTheLaneHasNoProvider() {
    SluiceContext.restore(SluiceContext.of(null, "gray"));
    assertThat(route(all, all)).containsExactly(gray);

    SluiceContext.restore(SluiceContext.of(null, "blue"));
    assertThat(route(all, all)).containsExactly(mse);

    SluiceContext.restore(SluiceContext.of(null, "green"));
    assertThat(route(all, all)).containsExactly(base1, base2);
  }

  @Test
  void looksUpTheSamePrecomputedListForTheSameProviderList() {
    SluiceContext.restore(SluiceContext.of(null, "gray"));
    assertThat(route(all, all)).isSameAs(route(List.copyOf(all), all));
  }

  @Test
  void leavesDubbosRoutingAloneWhenNoProviderHasATag() {
    List<Provider> untagged = List.of(base1, base2);
    List<Provider> routed = List.of(base2);
    assertThat(route(routed, untagged)).isSameAs(routed);
  }

  @Test
  void keepsToWhatDubbosOwnRoutersLeft() {
    SluiceContext.restore(SluiceContext.of(null, "gray"));
    // Dubbo's tag router (say) kept only base2: the lane has none there, so base2.
    assertThat(route(List.of(base2), all)).containsExactly(base2);
    SluiceContext.restore(null);
    assertThat(route(List.of(base1, gray), all)).containsExactly(base1);
  }

  @SuppressWarnings("unchecked")
  private List<Object> route(List<?> routed, List<?> everyone) {
    return (List<Object>) lanes.laneInvokersAmong(routed, everyone);
  }

  private static Provider provider(String name, Map<String, String> parameters) {
    return new Provider(name, new Url(parameters));
  }
}
