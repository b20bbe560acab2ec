package io.sluice.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.testing.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LoginThrottleTest {
  private final ManualClock clock = new ManualClock();
  private final LoginThrottle throttle = new LoginThrottle(clock, 60, 3);

  @Test
  void letsABurstThroughThenOneLoginPerIntervalPerSource() {
    assertThat(throttle.secondsToWait("10.0.0.1")).isZero();
    assertThat(throttle.secondsToWait("10.0.0.1")).isZero();
    assertThat(throttle.secondsToWait("10.0.0.1")).isZero();
    assertThat(throttle.secondsToWait("10.0.0.1")).as("beyond the burst").isEqualTo(1);
    assertThat(throttle.secondsToWait("10.0.0.2")).as("another source").isZero();

    clock.advance(Duration.ofMillis(1_000));
    assertThat(throttle.secondsToWait("10.0.0.1")).isZero();
    assertThat(throttle.secondsToWait("10.0.0.1")).isEqualTo(1);
  }

  @Test
  void aRefusedAttemptDoesNotPushTheNextOneFurtherAway() {
    for (int i = 0; i < 3; i++) {
      throttle.secondsToWait("10.0.0.1");
    }
    for (int i = 0; i < 100; i++) {
      assertThat(throttle.secondsToWait("10.0.0.1")).isEqualTo(1);
    }
    clock.advance(Duration.ofSeconds(1));
    assertThat(throttle.secondsToWait("10.0.0.1")).isZero();
  }

  @Test
  void aQuietSourceGetsItsWholeBurstBack() {
    for (int i = 0; i < 3; i++) {
      throttle.secondsToWait("10.0.0.1");
    }
    clock.advance(Duration.ofMinutes(5));
    for (int i = 0; i < 3; i++) {
      assertThat(throttle.secondsToWait("10.0.0.1")).isZero();
    }
  }
}
