package io.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WarmupTest {
  @Test
  void compilersUnderThreePercentOfACoreAreQuiet() {
    assertThat(Warmup.quiet(0.15, 5)).isTrue();
    assertThat(Warmup.quiet(0.0, 5)).isTrue();
    assertThat(Warmup.quiet(0.16, 5)).isFalse();
    // The official client's driver still compiling after 45 s: 2.4 of 12 CPU-s.
    assertThat(Warmup.quiet(2.4, 12)).isFalse();
  }

  @Test
  void anUnknownCompilerTimeDoesNotHoldTheWindow() {
    assertThat(Warmup.quiet(Double.NaN, 5)).isTrue();
  }

  @Test
  void refusesNegativeTimes() {
    assertThatThrownBy(() -> new Warmup(Duration.ofSeconds(-1), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Warmup(Duration.ZERO, Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aFixedWarmupDoesNotLookAtTheCompilers() throws Exception {
    Measurement measurement = new Measurement(null, Map.of("ops", new LatencyStats()));

    measurement.warmUp(Warmup.fixed(Duration.ofMillis(100)));
    measurement.begin();
    Measurement.Window window = measurement.end();

    assertThat(window.jitSettled()).isNull();
    assertThat(window.warmupSeconds()).isBetween(0.09, 5.0);
  }

  @Test
  void aSettlingWarmupLooksAtLeastOnceAndStopsAtItsBound() throws Exception {
    Measurement measurement = new Measurement(null, Map.of("ops", new LatencyStats()));

    // Shorter than one step: the warm-up lasts the one step it looks over, quiet or not, since a
    // second step would pass the bound.
    measurement.warmUp(new Warmup(Duration.ZERO, Duration.ofSeconds(1)));
    measurement.begin();
    Measurement.Window window = measurement.end();

    assertThat(window.jitSettled()).isNotNull();
    assertThat(window.warmupSeconds()).isBetween(4.9, 50.0);
  }
}
