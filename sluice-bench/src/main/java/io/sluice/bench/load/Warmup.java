package io.sluice.bench.load;

import java.time.Duration;

/**
 * How long a scenario runs before its window opens: {@code minimum}, then, while the driver's or
 * the server's JIT compiler threads used more than {@value #QUIET_JIT_SHARE} of a core over the
 * last {@link #STEP} (the last step of the minimum included), one step more, up to {@code
 * settleMax} more in all. The same rule for every server and client: the window opens on two JVMs
 * that have compiled their hot paths, whichever came first.
 *
 * <p>Why: the official nacos-client compiles ~5,500 methods (~1,500 with C2) in its driver JVM. On
 * its one core, saturated by its 64 callers against a server that answers fast, its compiler
 * threads got so little of the core that after 45 s its hottest paths (the client's socket reads,
 * selector and buffers) were still being compiled inside the window: 2-3 of its 12 CPU-s compiling
 * and ~100-160 µs of driver CPU per query, against ~60 µs once compiled. Which run caught it
 * depended on how busy the driver's core had been during the warm-up, not on the server.
 *
 * @param minimum always spent
 * @param settleMax the most spent beyond {@code minimum} waiting for quiet compilers; zero turns
 *     the check off
 */
record Warmup(Duration minimum, Duration settleMax) {
  /** How long one look at the compiler threads lasts. */
  static final Duration STEP = Duration.ofSeconds(5);

  /** Compiler threads at or under this share of one core count as done compiling. */
  static final double QUIET_JIT_SHARE = 0.03;

  Warmup {
    if (minimum.isNegative() || settleMax.isNegative()) {
      throw new IllegalArgumentException(
          "warm-up times must not be negative: " + minimum + ", " + settleMax);
    }
  }

  /** Exactly {@code minimum}, compilers or not. */
  static Warmup fixed(Duration minimum) {
    return new Warmup(minimum, Duration.ZERO);
  }

  /**
   * Whether compiler threads that used {@code jitSeconds} of CPU over {@code stepSeconds} of wall
   * time are done; unknown (NaN, no {@code /proc}) counts as done, since waiting would not tell.
   */
  static boolean quiet(double jitSeconds, double stepSeconds) {
    return Double.isNaN(jitSeconds) || jitSeconds <= QUIET_JIT_SHARE * stepSeconds;
  }
}
