package io.sluice.flow.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class WarmUpModelTest {

  private static final long SECOND = 1_000_000_000L;

  @Test
  void startsColdAtTheRateDividedByTheColdFactor() {
    WarmUpModel model = new WarmUpModel(300, 10, 3);
    assertThat(model.allowedRate(0, 0)).isCloseTo(100, within(0.5));
  }

  @Test
  void reachesTheFullRateAfterAboutTheWarmUpPeriodOfTrafficAtTheAllowedRate() {
    WarmUpModel model = new WarmUpModel(300, 10, 3);
    long admitted = 0;
    double rate = model.allowedRate(0, admitted);
    int secondsToWarm = -1;
    for (int s = 1; s <= 30; s++) {
      admitted += (long) rate;
      rate = model.allowedRate(s * SECOND, admitted);
      if (rate >= 300 && secondsToWarm < 0) {
        secondsToWarm = s;
      }
    }
    assertThat(secondsToWarm).isBetween(5, 15);
    assertThat(rate).isEqualTo(300);
  }

  @Test
  void risesMonotonicallyWhileTrafficFlowsAndCoolsDownWhenIdle() {
    WarmUpModel model = new WarmUpModel(100, 5, 3);
    long admitted = 0;
    double previous = model.allowedRate(0, 0);
    for (int s = 1; s <= 20; s++) {
      admitted += (long) previous;
      double rate = model.allowedRate(s * SECOND, admitted);
      assertThat(rate).isGreaterThanOrEqualTo(previous);
      previous = rate;
    }
    assertThat(previous).isEqualTo(100);
    double afterIdle = model.allowedRate(200 * SECOND, admitted);
    assertThat(afterIdle).isCloseTo(100 / 3.0, within(0.5));
  }
}
