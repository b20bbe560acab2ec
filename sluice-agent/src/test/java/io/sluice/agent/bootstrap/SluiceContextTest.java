package io.sluice.agent.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SluiceContextTest {
  @Test
  void readsTheLaneFromTheSluiceHeaderThenMseThenBaggage() {
    assertThat(SluiceContext.inbound(null, "a", "b", "sluice-lane=c").lane()).isEqualTo("a");
    assertThat(SluiceContext.inbound(null, null, "b", "sluice-lane=c").lane()).isEqualTo("b");
    assertThat(SluiceContext.inbound(null, null, null, "k=v, sluice-lane = c ;p=1,x=y").lane())
        .isEqualTo("c");
    assertThat(SluiceContext.inbound(null, null, null, "k=v,x=y")).isNull();
    assertThat(SluiceContext.inbound(null, null, null, null)).isNull();
  }

  @Test
  void writesTheSluiceHeaderAndEveryFormTheLaneArrivedIn() {
    assertThat(SluiceContext.inbound(null, "gray", null, null).outboundHeaders())
        .containsExactly("x-sluice-lane", "gray");
    assertThat(SluiceContext.inbound(null, null, "gray", null).outboundHeaders())
        .containsExactly("x-sluice-lane", "gray", "x-mse-tag", "gray");
    assertThat(SluiceContext.inbound(null, null, null, "sluice-lane=gray,k=v").outboundHeaders())
        .containsExactly("x-sluice-lane", "gray", "baggage", "sluice-lane=gray,k=v");
    // Baggage without the lane member is not a lane form: it is not rewritten.
    assertThat(SluiceContext.inbound(null, "gray", null, "k=v").outboundHeaders())
        .containsExactly("x-sluice-lane", "gray");
  }

  @Test
  void decodesAPercentEncodedBaggageValue() {
    assertThat(SluiceContext.baggageLane("sluice-lane=gray%2D1")).isEqualTo("gray-1");
  }

  @Test
  void aServerScopeRestoresTheThreadsContextAndNothingLeaksOutsideOne() {
    SluiceContext gray = SluiceContext.of(null, "gray");
    SluiceContext.attachInServerScope(gray);
    assertThat(SluiceContext.current()).as("no scope open: nothing attached").isNull();

    SluiceContext previous = SluiceContext.enterServerScope();
    SluiceContext.attachInServerScope(gray);
    assertThat(SluiceContext.current()).isSameAs(gray);
    SluiceContext.exitServerScope(previous);

    assertThat(SluiceContext.current()).isNull();
    SluiceContext.attachInServerScope(gray);
    assertThat(SluiceContext.current()).isNull();
  }

  @Test
  void sharesOneContextPerCallerForRequestsThatCarryOnlyTheirCallersName() {
    SluiceContext first = SluiceContext.inbound("orders", null, null, null);
    SluiceContext second = SluiceContext.inbound("orders", null, null, null);

    assertThat(first).isSameAs(second);
    assertThat(first.origin()).isEqualTo("orders");
    assertThat(SluiceContext.inbound("orders", "gray", null, null)).isNotSameAs(first);
    assertThat(SluiceContext.sharedOrigins()).contains("orders");
  }

  @Test
  void sharesOneContextPerCallerAndLaneForRequestsWithTheLaneInSluicesHeaderAlone() {
    SluiceContext gray = SluiceContext.inbound("billing", "gray", null, null);

    assertThat(SluiceContext.inbound("billing", new String("gray"), null, null)).isSameAs(gray);
    assertThat(gray.origin()).isEqualTo("billing");
    assertThat(gray.lane()).isEqualTo("gray");
    assertThat(SluiceContext.inbound("billing", "blue", null, null).lane()).isEqualTo("blue");
    assertThat(SluiceContext.inbound("billing", null, null, null).lane()).isNull();
    // A lane that arrived in other forms too is sent on in them: not shared.
    SluiceContext mse = SluiceContext.inbound("billing", "gray", "gray", null);
    assertThat(mse).isNotSameAs(gray);
    assertThat(mse.outboundHeaders()).containsExactly("x-sluice-lane", "gray", "x-mse-tag", "gray");
    assertThat(gray.outboundHeaders()).containsExactly("x-sluice-lane", "gray");
  }

  @Test
  void sharesOneContextPerLaneForRequestsInALaneThatNameNoCaller() {
    SluiceContext gray = SluiceContext.inbound(null, "gray-nc", null, null);

    assertThat(SluiceContext.inbound(null, new String("gray-nc"), null, null)).isSameAs(gray);
    // The entry rules' lane for a request that arrived with neither: the same context.
    assertThat(SluiceContext.of(null, new String("gray-nc"))).isSameAs(gray);
    assertThat(gray.origin()).isNull();
    assertThat(gray.lane()).isEqualTo("gray-nc");
    assertThat(gray.outboundHeaders()).containsExactly("x-sluice-lane", "gray-nc");
    assertThat(SluiceContext.inbound(null, "blue-nc", null, null).lane()).isEqualTo("blue-nc");
    assertThat(SluiceContext.inbound(null, "blue-nc", null, null)).isNotSameAs(gray);
    // A lane that arrived in other forms is sent on in them: not shared.
    SluiceContext mse = SluiceContext.inbound(null, null, "gray-nc", null);
    assertThat(mse).isNotSameAs(gray);
    assertThat(mse.outboundHeaders())
        .containsExactly("x-sluice-lane", "gray-nc", "x-mse-tag", "gray-nc");
    // Serving a route (CHAIN rules) in the lane reuses one variant per entrance too.
    SluiceContext routed = gray.withEntrance("GET /checkout");
    assertThat(gray.withEntrance(new String("GET /checkout"))).isSameAs(routed);
    assertThat(routed.lane()).isEqualTo("gray-nc");
    assertThat(routed.origin()).isNull();
  }

  @Test
  void theEntryRulesLaneForANamedCallerIsTheContextSharedPerCallerAndLane() {
    assertThat(SluiceContext.of("checkout", "gray"))
        .isSameAs(SluiceContext.inbound("checkout", "gray", null, null));
  }

  @Test
  void stopsSharingPastTheCapOnLanesButStillAnswersEachRequest() {
    SluiceContext last = null;
    for (int i = 0; i < 200; i++) {
      last = SluiceContext.inbound(null, "made-up-" + i, null, null);
      assertThat(last.lane()).isEqualTo("made-up-" + i);
    }
    assertThat(SluiceContext.inbound(null, "made-up-199", null, null))
        .as("past the cap, a context of its own")
        .isNotSameAs(last);
  }

  @Test
  void readsTheCallerFromSluicesHeaderThenSentinels() {
    assertThat(SluiceContext.originOf("a", "b")).isEqualTo("a");
    assertThat(SluiceContext.originOf(null, "b")).isEqualTo("b");
    assertThat(SluiceContext.originOf("", "")).isNull();
  }

  @Test
  void addsTheSendersOwnHeadersAfterTheLaneAndRebuildsThemWhenTheyChange() {
    SluiceContext gray = SluiceContext.inbound("web", "gray", null, null);
    String[] orders = {"x-sluice-origin", "orders"};

    String[] headers = gray.outboundHeaders(orders);
    assertThat(headers).containsExactly("x-sluice-lane", "gray", "x-sluice-origin", "orders");
    assertThat(gray.outboundHeaders(orders)).isSameAs(headers);
    assertThat(gray.outboundHeaders(new String[] {"x-sluice-origin", "billing"}))
        .containsExactly("x-sluice-lane", "gray", "x-sluice-origin", "billing");
    assertThat(SluiceContext.of("web", null).outboundHeaders(orders)).isSameAs(orders);
  }

  @Test
  void keepsOriginAndLaneWhenTheEntranceIsSet() {
    SluiceContext context = SluiceContext.inbound("web", null, "gray", null);
    SluiceContext routed = context.withEntrance("GET /checkout");

    assertThat(routed.origin()).isEqualTo("web");
    assertThat(routed.lane()).isEqualTo("gray");
    assertThat(routed.entrance()).isEqualTo("GET /checkout");
    assertThat(routed.outboundHeaders()).containsExactly(context.outboundHeaders());
    assertThat(routed.withEntrance("GET /checkout")).isSameAs(routed);
    assertThat(SluiceContext.ofEntrance("GET /x").entrance()).isEqualTo("GET /x");
  }
}
