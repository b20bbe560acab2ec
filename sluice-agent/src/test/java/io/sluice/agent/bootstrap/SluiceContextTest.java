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
}
