package io.sluice.flow.internal.rule;

import io.sluice.flow.RuleKind;

/**
 * A Sentinel {@code DegradeRule} (circuit breaker), validated. Sentinel ignores {@code limitApp} on
 * degrade rules, and so does Sluice.
 *
 * @param resource the guarded resource
 * @param grade {@link #GRADE_SLOW_RATIO}, {@link #GRADE_ERROR_RATIO} or {@link #GRADE_ERROR_COUNT}
 * @param count slow-call threshold in ms, error ratio in [0, 1], or error count
 * @param slowRatioThreshold ratio of slow calls that opens the breaker (slow-ratio grade)
 * @param openMillis how long the breaker stays open ({@code timeWindow} seconds)
 * @param minRequestAmount calls needed in the interval before the breaker may open
 * @param statIntervalMs the sliding interval over which calls are counted
 * @param probeCalls calls let through while half-open (Sluice field; Sentinel's behaviour is 1)
 */
public record DegradeRuleSpec(
    String resource,
    int grade,
    double count,
    double slowRatioThreshold,
    long openMillis,
    int minRequestAmount,
    int statIntervalMs,
    int probeCalls)
    implements RuleSpec {

  public static final int GRADE_SLOW_RATIO = 0;
  public static final int GRADE_ERROR_RATIO = 1;
  public static final int GRADE_ERROR_COUNT = 2;

  @Override
  public RuleKind kind() {
    return RuleKind.DEGRADE;
  }

  @Override
  public String describe() {
    String what =
        switch (grade) {
          case GRADE_SLOW_RATIO ->
              "grade=SLOW_REQUEST_RATIO, count="
                  + count
                  + "ms, slowRatioThreshold="
                  + slowRatioThreshold;
          case GRADE_ERROR_RATIO -> "grade=ERROR_RATIO, count=" + count;
          default -> "grade=ERROR_COUNT, count=" + count;
        };
    return "degrade rule {resource="
        + resource
        + ", "
        + what
        + ", timeWindow="
        + (openMillis / 1000.0)
        + "s, minRequestAmount="
        + minRequestAmount
        + ", statIntervalMs="
        + statIntervalMs
        + ", probeCalls="
        + probeCalls
        + "}";
  }
}
