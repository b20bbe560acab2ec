package io.sluice.agent.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InboundCallTest {
  @AfterEach
  void finishWhatIsLeft() {
    InboundCall.finish();
  }

  @Test
  void handsADeferredDecisionToTheHandlerMethodAndItsPermitBack() {
    Object method = "handler";
    assertThat(InboundCall.defer("resource", method, "request")).isTrue();

    assertThat(InboundCall.deferredFor("@ModelAttribute method")).isNull();
    InboundCall call = InboundCall.deferredFor(method);
    assertThat(call.resource()).isEqualTo("resource");
    assertThat(call.request()).isEqualTo("request");
    call.decided(-5);

    assertThat(InboundCall.deferredFor(method)).as("decided once").isNull();
    assertThat(InboundCall.finish()).isEqualTo(-5);
    assertThat(InboundCall.finish()).as("nothing left").isZero();
  }

  @Test
  void doesNotDeferACallWhileAnotherIsDeferredOnTheThread() {
    assertThat(InboundCall.defer("outer", "m1", null)).isTrue();
    assertThat(InboundCall.defer("inner", "m2", null)).isFalse();
    assertThat(InboundCall.deferredFor("m1").resource()).isEqualTo("outer");
  }

  @Test
  void releasesNothingWhenTheHandlerWasNeverInvoked() {
    InboundCall.defer("resource", "m", null);
    assertThat(InboundCall.finish()).isZero();
  }
}
