package io.sluice.agent.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void doublesUpToTheCapAndStartsOverAfterASuccess() {
    Backoff backoff = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(3), () -> 0.5);

    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(500));
    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(1000));
    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(2000));
    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(3000));
    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(3000));
    backoff.reset();
    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void spreadsWaitsByTwentyPercentEitherWay() {
    assertThat(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), () -> 0.0).next())
        .isEqualTo(Duration.ofMillis(800));
    assertThat(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), () -> 0.999).next())
        .isEqualTo(Duration.ofMillis(1200));
  }

  @Test
  void neverOverflowsAfterManyFailures() {
    Backoff backoff = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30), () -> 0.5);
    for (int i = 0; i < 100; i++) {
      assertThat(backoff.next()).isBetween(Duration.ofMillis(1), Duration.ofSeconds(30));
    }
  }

  @Test
  void rejectsAMaximumBelowTheInitialWait() {
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), () -> 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
