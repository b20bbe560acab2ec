package io.sluice.flow.internal.breaker;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.flow.BreakerState;
import io.sluice.flow.internal.rule.DegradeRuleSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000 * MS;

  private final List<String> transitions = new ArrayList<>();
  private long clockNow = -1;

  private CircuitBreaker breaker(int grade, double count, int probes) {
    return breaker(grade, count, probes, 1.0);
  }

  private CircuitBreaker breaker(int grade, double count, int probes, double slowRatio) {
    DegradeRuleSpec rule =
        new DegradeRuleSpec("r", grade, count, slowRatio, 10_000, 5, 1000, probes);
    return new CircuitBreaker(
        "r", rule, (resource, r, from, to) -> transitions.add(from + "->" + to), () -> clockNow);
  }

  /** One call entering at {@code at} and completing {@code rtMs} later. */
  private static void call(CircuitBreaker b, long at, long rtMs, boolean failed) {
    assertThat(b.tryPass(at)).isNotEqualTo(CircuitBreaker.REJECTED);
    b.onComplete(at, at + rtMs * MS, failed);
  }

  @Test
  void opensWhenTheErrorRatioPassesTheThresholdAfterTheMinimumCalls() {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_ERROR_RATIO, 0.5, 1);
    long t = 10 * SECOND;
    call(b, t, 0, true);
    call(b, t, 0, true);
    call(b, t, 0, true);
    call(b, t, 0, true);
    assertThat(b.state()).isEqualTo(BreakerState.CLOSED); // 4 calls < minRequestAmount 5
    call(b, t, 0, true);
    assertThat(b.state()).isEqualTo(BreakerState.OPEN);
    assertThat(b.tryPass(t + 9_999 * MS)).isEqualTo(CircuitBreaker.REJECTED);
    assertThat(transitions).containsExactly("CLOSED->OPEN");
  }

  @Test
  void staysClosedAtExactlyTheErrorRatioAsSentinelDoes() {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_ERROR_RATIO, 0.5, 1);
    long t = 10 * SECOND;
    for (int i = 0; i < 5; i++) {
      call(b, t, 1, false);
    }
    for (int i = 0; i < 5; i++) {
      call(b, t, 0, true);
    }
    assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
    call(b, t, 0, true);
    assertThat(b.state()).isEqualTo(BreakerState.OPEN);
  }

  @Test
  void opensOnTheErrorCount() {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_ERROR_COUNT, 2, 1);
    long t = 10 * SECOND;
    for (int i = 0; i < 10; i++) {
      call(b, t, 1, false);
    }
    call(b, t, 0, true);
    call(b, t, 0, true);
    assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
    call(b, t, 0, true);
    assertThat(b.state()).isEqualTo(BreakerState.OPEN);
  }

  @Test
  void opensOnTheSlowCallRatioMeasuredInNanoseconds() {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_SLOW_RATIO, 200, 1, 0.5);
    long t = 10 * SECOND;
    call(b, t, 200, false); // exactly the threshold: not slow
    call(b, t, 100, false);
    b.tryPass(t);
    b.onComplete(t, t + 200 * MS + 1, false); // one ns over: slow
    call(b, t, 300, false);
    assertThat(b.state()).isEqualTo(BreakerState.CLOSED); // 2 of 4, below the minimum of 5
    call(b, t, 300, false); // 3 of 5 = 0.6 > 0.5
    assertThat(b.state()).isEqualTo(BreakerState.OPEN);
  }

  @Test
  void countsUntimedCallsAtTheirEntryTimeAndReadsTheClockOnlyToOpen() {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_ERROR_COUNT, 2, 1);
    long t = 10 * SECOND;
    for (int i = 0; i < 5; i++) {
      assertThat(b.tryPass(t)).isEqualTo(CircuitBreaker.PASSED);
      b.onComplete(t, -1, i < 2);
    }
    assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
    clockNow = t + 40 * MS;
    b.tryPass(t + 30 * MS);
    b.onComplete(t + 30 * MS, -1, true);
    assertThat(b.state()).isEqualTo(BreakerState.OPEN);
    // Opened at the clock's 40 ms, not at the call's entry: half-open 10 s after that.
    assertThat(b.tryPass(t + 40 * MS + 10 * SECOND - 1_000_000)).isEqualTo(CircuitBreaker.REJECTED);
    assertThat(b.tryPass(t + 40 * MS + 10 * SECOND)).isEqualTo(CircuitBreaker.PROBING);
  }

  @Test
  void neverJudgesAnUntimedCallSlow() {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_SLOW_RATIO, 1, 1, 0.1);
    assertThat(b.needsResponseTimes()).isTrue();
    long t = 10 * SECOND;
    for (int i = 0; i < 10; i++) {
      b.tryPass(t);
      b.onComplete(t, -1, true);
    }
    assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
  }

  @Test
  void forgetsCallsOlderThanTheSlidingIntervalBucketByBucket() {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_ERROR_COUNT, 3, 1);
    long t = 10 * SECOND;
    call(b, t, 0, true);
    call(b, t + 300 * MS, 1, true);
    call(b, t + 600 * MS, 1, true);
    for (int i = 0; i < 5; i++) {
      call(b, t + 650 * MS, 1, false);
    }
    // 1.05 s after the first error it has left the 1 s window; two errors remain.
    call(b, t + 1_050 * MS, 1, true);
    assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
    // Within 1 s of the second error: four errors in the window.
    call(b, t + 1_250 * MS, 1, true);
    assertThat(b.state()).isEqualTo(BreakerState.OPEN);
  }

  @Test
  void goesHalfOpenAfterTheOpenDurationLetsOneProbeThroughAndClosesWhenItSucceeds() {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_ERROR_COUNT, 0, 1);
    long t = 10 * SECOND;
    for (int i = 0; i < 5; i++) {
      call(b, t, 0, true);
    }
    assertThat(b.state()).isEqualTo(BreakerState.OPEN);
    long retry = t + 10 * SECOND;
    assertThat(b.tryPass(retry - 1 * MS)).isEqualTo(CircuitBreaker.REJECTED);
    assertThat(b.tryPass(retry)).isEqualTo(CircuitBreaker.PROBING);
    assertThat(b.state()).isEqualTo(BreakerState.HALF_OPEN);
    assertThat(b.tryPass(retry + 1)).isEqualTo(CircuitBreaker.REJECTED);
    b.onComplete(retry, retry + 5 * MS, false);
    assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
    assertThat(b.tryPass(retry + 6 * MS)).isEqualTo(CircuitBreaker.PASSED);
    assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
  }

  @Test
  void reopensWhenAProbeFailsAndWaitsAFullOpenDurationAgain() {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_ERROR_COUNT, 0, 1);
    long t = 10 * SECOND;
    for (int i = 0; i < 5; i++) {
      call(b, t, 0, true);
    }
    long retry = t + 10 * SECOND;
    assertThat(b.tryPass(retry)).isEqualTo(CircuitBreaker.PROBING);
    b.onComplete(retry, retry + 2 * MS, true);
    assertThat(b.state()).isEqualTo(BreakerState.OPEN);
    assertThat(b.tryPass(retry + 9 * SECOND)).isEqualTo(CircuitBreaker.REJECTED);
    assertThat(b.tryPass(retry + 10 * SECOND + 2 * MS)).isEqualTo(CircuitBreaker.PROBING);
    assertThat(transitions)
        .containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->OPEN", "OPEN->HALF_OPEN");
  }

  @Test
  void needsEveryConfiguredProbeToSucceedBeforeClosing() {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_ERROR_COUNT, 0, 3);
    long t = 10 * SECOND;
    for (int i = 0; i < 5; i++) {
      call(b, t, 0, true);
    }
    long retry = t + 10 * SECOND;
    assertThat(b.tryPass(retry)).isEqualTo(CircuitBreaker.PROBING);
    assertThat(b.tryPass(retry)).isEqualTo(CircuitBreaker.PROBING);
    assertThat(b.tryPass(retry)).isEqualTo(CircuitBreaker.PROBING);
    assertThat(b.tryPass(retry)).isEqualTo(CircuitBreaker.REJECTED);
    b.onComplete(retry, retry + MS, false);
    b.onComplete(retry, retry + MS, false);
    assertThat(b.state()).isEqualTo(BreakerState.HALF_OPEN);
    b.onComplete(retry, retry + MS, false);
    assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
  }

  @Test
  void judgesASlowProbeAsAFailure() {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_SLOW_RATIO, 100, 1, 0.1);
    long t = 10 * SECOND;
    for (int i = 0; i < 5; i++) {
      call(b, t, 150, false);
    }
    assertThat(b.state()).isEqualTo(BreakerState.OPEN);
    long retry = t + 150 * MS + 10 * SECOND;
    assertThat(b.tryPass(retry)).isEqualTo(CircuitBreaker.PROBING);
    b.onComplete(retry, retry + 101 * MS, false);
    assertThat(b.state()).isEqualTo(BreakerState.OPEN);
  }

  @Test
  void ignoresCallsThatEnteredBeforeItOpenedWhenTheyCompleteDuringHalfOpen() {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_ERROR_COUNT, 0, 1);
    long t = 10 * SECOND;
    assertThat(b.tryPass(t)).isEqualTo(CircuitBreaker.PASSED); // a long call, entered while closed
    for (int i = 0; i < 5; i++) {
      call(b, t + MS, 0, true);
    }
    long retry = t + MS + 10 * SECOND;
    assertThat(b.tryPass(retry)).isEqualTo(CircuitBreaker.PROBING);
    b.onComplete(t, retry + MS, false); // the old call finishes: not the probe
    assertThat(b.state()).isEqualTo(BreakerState.HALF_OPEN);
  }

  @Test
  void givesUpOnAProbeThatNeverReturnsAfterTheOpenDuration() {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_ERROR_COUNT, 0, 1);
    long t = 10 * SECOND;
    for (int i = 0; i < 5; i++) {
      call(b, t, 0, true);
    }
    long retry = t + 10 * SECOND;
    assertThat(b.tryPass(retry)).isEqualTo(CircuitBreaker.PROBING); // never released
    assertThat(b.tryPass(retry + 9 * SECOND)).isEqualTo(CircuitBreaker.REJECTED);
    long again = retry + 10 * SECOND;
    assertThat(b.tryPass(again)).isEqualTo(CircuitBreaker.PROBING);
    b.onComplete(retry, again + MS, false); // the lost probe finally returns: ignored
    assertThat(b.state()).isEqualTo(BreakerState.HALF_OPEN);
    b.onComplete(again, again + MS, false);
    assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
  }

  @Test
  void givesACancelledProbeSlotBack() {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_ERROR_COUNT, 0, 1);
    long t = 10 * SECOND;
    for (int i = 0; i < 5; i++) {
      call(b, t, 0, true);
    }
    long retry = t + 10 * SECOND;
    assertThat(b.tryPass(retry)).isEqualTo(CircuitBreaker.PROBING);
    b.cancelProbe();
    assertThat(b.tryPass(retry + 1)).isEqualTo(CircuitBreaker.PROBING);
  }

  @Test
  void restartsItsWindowWhenItCloses() {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_ERROR_COUNT, 4, 1);
    long t = 10 * SECOND;
    for (int i = 0; i < 5; i++) {
      call(b, t, 0, true);
    }
    long retry = t + 10 * SECOND;
    b.tryPass(retry);
    b.onComplete(retry, retry + MS, false);
    assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
    for (int i = 0; i < 4; i++) {
      call(b, retry + 150 * MS, 1, true);
    }
    call(b, retry + 150 * MS, 1, false);
    assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
  }

  @Test
  void letsExactlyTheConfiguredProbesThroughWhenManyThreadsArriveAtOnce() throws Exception {
    CircuitBreaker b = breaker(DegradeRuleSpec.GRADE_ERROR_COUNT, 0, 3);
    long t = 10 * SECOND;
    for (int i = 0; i < 5; i++) {
      call(b, t, 0, true);
    }
    long retry = t + 10 * SECOND;
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    AtomicInteger probes = new AtomicInteger();
    for (int i = 0; i < threads; i++) {
      pool.execute(
          () -> {
            try {
              start.await();
            } catch (InterruptedException e) {
              return;
            }
            for (int k = 0; k < 1000; k++) {
              if (b.tryPass(retry) == CircuitBreaker.PROBING) {
                probes.incrementAndGet();
              }
            }
          });
    }
    start.countDown();
    pool.shutdown();
    assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    assertThat(probes.get()).isEqualTo(3);
    assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN");
  }
}
