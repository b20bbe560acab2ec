package io.sluice.flow.internal.param;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.flow.internal.rule.FlowRuleSpec;
import io.sluice.flow.internal.rule.ParamFlowRuleSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ParamValueLimitersTest {

  private static final long SECOND = 1_000_000_000L;
  private static final long MS = 1_000_000L;

  private final AtomicLong overflow = new AtomicLong();

  private ParamValueLimiters limiters(double count, Map<Object, Long> items, int maxValues) {
    return new ParamValueLimiters(
        new ParamFlowRuleSpec("r", 0, null, count, FlowRuleSpec.BEHAVIOR_REJECT, 0, 0, 1, items),
        maxValues,
        overflow);
  }

  private static int admitted(ParamValueLimiters l, long now, Object value, int offered) {
    int admitted = 0;
    for (int i = 0; i < offered; i++) {
      if (l.tryAcquire(now, value) >= 0) {
        admitted++;
      }
    }
    return admitted;
  }

  @Test
  void limitsEachValueSeparately() {
    ParamValueLimiters l = limiters(2, Map.of(), 100);
    assertThat(admitted(l, SECOND, "alice", 5)).isEqualTo(2);
    assertThat(admitted(l, SECOND, "bob", 5)).isEqualTo(2);
    assertThat(admitted(l, SECOND + 999 * MS, "alice", 5)).isZero();
    assertThat(admitted(l, 2 * SECOND + MS, "alice", 5)).isEqualTo(2);
  }

  @Test
  void appliesTheCountOfAnExceptionItemToItsValue() {
    ParamValueLimiters l = limiters(2, Map.of("vip-42", 5L, 7, 0L), 100);
    assertThat(admitted(l, SECOND, "vip-42", 10)).isEqualTo(5);
    assertThat(admitted(l, SECOND, 7, 10)).isZero();
    assertThat(admitted(l, SECOND, 7L, 10)).isEqualTo(2); // a Long is not the int item
  }

  @Test
  void doesNotLimitANullArgumentAndChecksEveryElementOfACollection() {
    ParamValueLimiters l = limiters(1, Map.of(), 100);
    assertThat(admitted(l, SECOND, null, 10)).isEqualTo(10);
    assertThat(l.tryAcquire(SECOND, List.of("a", "b"))).isZero();
    assertThat(l.tryAcquire(SECOND, List.of("c", "a"))).isEqualTo(-1);
    assertThat(l.tryAcquire(SECOND, new Object[] {"d"})).isZero();
  }

  @Test
  void pacesEachValueWithTheRateLimiterBehaviour() {
    ParamValueLimiters l =
        new ParamValueLimiters(
            new ParamFlowRuleSpec(
                "r", 0, null, 10, FlowRuleSpec.BEHAVIOR_PACING, 250, 0, 1, Map.of()),
            100,
            overflow);
    List<Long> waits = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      waits.add(l.tryAcquire(SECOND, "a"));
    }
    assertThat(waits).containsExactly(0L, 100 * MS, 200 * MS, -1L, -1L);
    assertThat(l.tryAcquire(SECOND, "b")).isZero();
  }

  @Test
  void sharesAnOverflowLimiterWhenTheTableIsFullOfActiveValues() {
    ParamValueLimiters l = limiters(2, Map.of(), 2);
    assertThat(admitted(l, SECOND, "a", 1)).isEqualTo(1);
    assertThat(admitted(l, SECOND, "b", 1)).isEqualTo(1);
    assertThat(admitted(l, SECOND + 500 * MS, "c", 1)).isEqualTo(1);
    assertThat(admitted(l, SECOND + 500 * MS, "d", 5)).isEqualTo(1); // shares c's overflow budget
    assertThat(overflow.get()).isEqualTo(6);
    assertThat(l.trackedValues()).isEqualTo(2);
    // "a" is still limited by its own limiter: one more, then none.
    assertThat(admitted(l, SECOND + 600 * MS, "a", 5)).isEqualTo(1);
  }

  @Test
  void evictsValuesIdleForAWholeWindowToMakeRoom() {
    ParamValueLimiters l = limiters(2, Map.of(), 2);
    admitted(l, SECOND, "a", 1);
    admitted(l, SECOND, "b", 1);
    long later = 2 * SECOND + MS;
    assertThat(admitted(l, later, "c", 5)).isEqualTo(2);
    assertThat(overflow.get()).isZero();
    assertThat(l.trackedValues()).isEqualTo(1);
  }

  @Test
  void admitsExactlyTheCountPerValueWhenManyThreadsRace() throws Exception {
    // 30 per value fits the per-value log exactly (32 slots); above that, blocks of 2^k calls
    // admit slightly less than the count, never more.
    ParamValueLimiters l = limiters(30, Map.of(), 1000);
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    AtomicInteger hot = new AtomicInteger();
    AtomicInteger other = new AtomicInteger();
    for (int t = 0; t < threads; t++) {
      pool.execute(
          () -> {
            try {
              start.await();
            } catch (InterruptedException e) {
              return;
            }
            for (int i = 0; i < 500; i++) {
              if (l.tryAcquire(SECOND, "hot") >= 0) {
                hot.incrementAndGet();
              }
              if (l.tryAcquire(SECOND, "v" + (i % 20)) >= 0) {
                other.incrementAndGet();
              }
            }
          });
    }
    start.countDown();
    pool.shutdown();
    assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    // Sentinel #3366 let 3 through a limit of 2; here the count is exact per value.
    assertThat(hot.get()).isEqualTo(30);
    assertThat(other.get()).isEqualTo(20 * 30);
  }

  @Test
  void neverLetsAValueExceedItsLimitWhileTheTableChurnsUnderRacingThreads() throws Exception {
    // Twelve values through a table of four: values are evicted, overflow, come back. Threads
    // race within each 300 ms phase; per value, admissions in any second stay within its own
    // limit plus, at most, the shared overflow limit.
    ParamValueLimiters l = limiters(3, Map.of(), 4);
    int threads = 6;
    int phases = 40;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    java.util.concurrent.CyclicBarrier barrier = new java.util.concurrent.CyclicBarrier(threads);
    List<List<long[]>> perThread = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      List<long[]> admissions = new ArrayList<>();
      perThread.add(admissions);
      int thread = t;
      pool.execute(
          () -> {
            try {
              for (int phase = 0; phase < phases; phase++) {
                barrier.await();
                long now = SECOND + phase * 300 * MS;
                for (int i = 0; i < 50; i++) {
                  int value = (phase * 5 + (i + thread) % 6) % 12;
                  if (l.tryAcquire(now, value) >= 0) {
                    admissions.add(new long[] {value, now});
                  }
                }
              }
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          });
    }
    pool.shutdown();
    assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
    assertThat(overflow.get()).isPositive();
    long total = 0;
    for (int value = 0; value < 12; value++) {
      List<Long> times = new ArrayList<>();
      for (List<long[]> admissions : perThread) {
        for (long[] a : admissions) {
          if (a[0] == value) {
            times.add(a[1]);
          }
        }
      }
      total += times.size();
      times.sort(null);
      int from = 0;
      for (int to = 0; to < times.size(); to++) {
        while (times.get(to) - times.get(from) >= SECOND) {
          from++;
        }
        assertThat(to - from + 1).isLessThanOrEqualTo(3 + 3);
      }
    }
    assertThat(total).isPositive();
  }
}
