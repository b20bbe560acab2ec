package io.sluice.flow;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SmokeTest {

  @Test
  void admitsUpToTheQpsLimitThenBlocksWithTheFlowKind() {
    FakeTicker ticker = new FakeTicker();
    FlowRegistry registry = FlowRegistry.builder().ticker(ticker).build();
    registry.load(RuleKind.FLOW, "[{\"resource\":\"r\",\"count\":3}]");
    Resource r = registry.resource("r");
    int admitted = 0;
    long lastBlocked = 0;
    for (int i = 0; i < 5; i++) {
      long p = r.tryAcquire();
      if (Permit.isAdmitted(p)) {
        admitted++;
        r.release(p);
      } else {
        lastBlocked = p;
      }
    }
    assertThat(admitted).isEqualTo(3);
    assertThat(Permit.blockedBy(lastBlocked)).isEqualTo(RuleKind.FLOW);
    assertThat(r.describeBlock(lastBlocked)).contains("count=3.0");
    System.out.println(r.statistics());
  }
}
