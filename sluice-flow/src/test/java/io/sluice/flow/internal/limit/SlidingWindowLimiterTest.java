package io.sluice.flow.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SlidingWindowLimiterTest {

  private static final long SECOND = 1_000_000_000L;
  private static final long MS = 1_000_000L;

  @Test
  void admitsABurstOfTheWholeLimitAtOnceAndNothingMore() {
    SlidingWindowLimiter limiter = new SlidingWindowLimiter(10, SECOND);
    assertThat(admitted(limiter, 5 * SECOND, 25)).isEqualTo(10);
  }

  @Test
  void rejectsABurstJustAfterTheEdgeOfAFixedWindowThatFollowsABurstJustBeforeIt() {
    // The attack on a fixed or bucketed window: the limit at 0.999 s and again at 1.001 s.
    SlidingWindowLimiter limiter = new SlidingWindowLimiter(10, SECOND);
    assertThat(admitted(limiter, 999 * MS, 10)).isEqualTo(10);
    assertThat(admitted(limiter, 1001 * MS, 10)).isZero();
    assertThat(admitted(limiter, 1998 * MS, 10)).isZero();
    assertThat(admitted(limiter, 1999 * MS + 2_000, 10)).isEqualTo(10);
  }

  @Test
  void freesEachSlotOneWindowAfterItsAdmissionToTheMicrosecond() {
    SlidingWindowLimiter limiter = new SlidingWindowLimiter(3, SECOND);
    long t0 = 7 * SECOND + 123_456;
    assertThat(limiter.tryAcquire(t0)).isTrue();
    assertThat(limiter.tryAcquire(t0 + 100 * MS)).isTrue();
    assertThat(limiter.tryAcquire(t0 + 200 * MS)).isTrue();
    assertThat(limiter.tryAcquire(t0 + SECOND - 1_000)).isFalse();
    assertThat(limiter.tryAcquire(t0 + SECOND + 1_024)).isTrue();
    assertThat(limiter.tryAcquire(t0 + SECOND + 1_024)).isFalse();
    assertThat(limiter.tryAcquire(t0 + SECOND + 100 * MS + 1_024)).isTrue();
  }

  @Test
  void neverAdmitsMoreThanTheLimitInAnySlidingWindowUnderBurstsAroundEdges() {
    for (long limit : new long[] {1, 2, 7, 100, 256}) {
      SlidingWindowLimiter limiter = new SlidingWindowLimiter(limit, SECOND);
      List<Long> admittedAt = new ArrayList<>();
      List<Long> rejectedAt = new ArrayList<>();
      offerTwiceTheLimitInBurstsAroundEdges(
          limiter, limit, 20, new Random(limit), admittedAt, rejectedAt);
      assertThat(maxInAnyWindow(admittedAt, SECOND)).isLessThanOrEqualTo(limit);
      // Up to 256 the log is exact: a call is rejected only when the limit was reached within
      // the window before it (allowing the 1,024 ns rounding of recorded times).
      for (long t : rejectedAt) {
        assertThat(countIn(admittedAt, t - SECOND - 2_048, t + 1)).isGreaterThanOrEqualTo(limit);
      }
      assertThat(rejectedAt).isNotEmpty();
    }
  }

  @Test
  void staysUnderTheLimitWithBlocksAndAdmitsAlmostAllOfIt() {
    for (long limit : new long[] {257, 1000, 4096, 100_000}) {
      SlidingWindowLimiter limiter = new SlidingWindowLimiter(limit, SECOND);
      assertThat(limiter.blockSize()).isGreaterThan(1);
      assertThat(limiter.blocksPerWindow()).isLessThanOrEqualTo(SlidingWindowLimiter.MAX_BLOCKS);
      List<Long> admittedAt = new ArrayList<>();
      offerTwiceTheLimitInBurstsAroundEdges(
          limiter, limit, 6, new Random(limit), admittedAt, new ArrayList<>());
      assertThat(maxInAnyWindow(admittedAt, SECOND)).isLessThanOrEqualTo(limit);
      // Steady offered load above the limit: at most 2/256 of the limit goes unused.
      double perSecond = admittedAt.size() / 6.0;
      assertThat(perSecond).isGreaterThan(limit * (1 - 2.0 / 256) - 1);
    }
  }

  @Test
  void turnsFractionalRatesIntoLongerWindowsAndZeroIntoNothing() {
    SlidingWindowLimiter fifth = SlidingWindowLimiter.forRate(0.2, 1.0, 256);
    assertThat(fifth.limit()).isEqualTo(1);
    assertThat(fifth.windowNanos()).isEqualTo(5 * SECOND);
    assertThat(fifth.tryAcquire(0)).isTrue();
    assertThat(fifth.tryAcquire(4 * SECOND)).isFalse();
    assertThat(fifth.tryAcquire(5 * SECOND + 2_048)).isTrue();

    SlidingWindowLimiter floor = SlidingWindowLimiter.forRate(2.7, 1.0, 256);
    assertThat(admitted(floor, 0, 5)).isEqualTo(2);

    SlidingWindowLimiter none = SlidingWindowLimiter.forRate(0, 1.0, 256);
    assertThat(admitted(none, 0, 5)).isZero();
  }

  @Test
  void admitsFewerWhenAskedForFewerBlocks() {
    SlidingWindowLimiter limiter = new SlidingWindowLimiter(100, SECOND);
    int blocks = limiter.blocksFor(30);
    int admitted = 0;
    for (int i = 0; i < 100; i++) {
      if (limiter.tryAcquire(SECOND, blocks)) {
        admitted++;
      }
    }
    assertThat(admitted).isEqualTo(30);
  }

  @Test
  void admitsExactlyTheLimitWhenManyThreadsArriveAtTheSameInstant() throws Exception {
    for (long limit : new long[] {1, 50, 256, 10_000}) {
      SlidingWindowLimiter limiter = new SlidingWindowLimiter(limit, SECOND);
      long admitted = race(8, 3_000, t -> limiter.tryAcquire(3 * SECOND));
      long expected = limiter.blocksPerWindow() * limiter.blockSize();
      assertThat(admitted).isEqualTo(expected).isLessThanOrEqualTo(limit);
    }
  }

  @Test
  void neverExceedsTheLimitWhenManyThreadsRaceAcrossAdvancingTime() throws Exception {
    long limit = 40;
    SlidingWindowLimiter limiter = new SlidingWindowLimiter(limit, SECOND);
    // Phases of 100 ms: in each, all threads race at the same instant; then time moves on.
    List<Long> admittedAt = new ArrayList<>();
    for (int phase = 0; phase < 30; phase++) {
      long now = phase * 100 * MS;
      long admitted = race(6, 20, t -> limiter.tryAcquire(now));
      for (long i = 0; i < admitted; i++) {
        admittedAt.add(now);
      }
    }
    assertThat(maxInAnyWindow(admittedAt, SECOND)).isEqualTo(limit);
  }

  /** Runs {@code attempts} calls on each of {@code threads} threads released together. */
  static long race(int threads, int attempts, AttemptPerThread attempt) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch ready = new CountDownLatch(threads);
      CountDownLatch start = new CountDownLatch(1);
      AtomicLong admitted = new AtomicLong();
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        futures.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  start.await();
                  for (int i = 0; i < attempts; i++) {
                    if (attempt.tryOnce(thread)) {
                      admitted.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      ready.await();
      start.countDown();
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.SECONDS);
      }
      return admitted.get();
    } finally {
      pool.shutdownNow();
    }
  }

  interface AttemptPerThread {
    boolean tryOnce(int thread);
  }

  private static int admitted(SlidingWindowLimiter limiter, long now, int offered) {
    int admitted = 0;
    for (int i = 0; i < offered; i++) {
      if (limiter.tryAcquire(now)) {
        admitted++;
      }
    }
    return admitted;
  }

  /**
   * Offers 2× the limit per second for {@code seconds}: half in bursts a few µs either side of
   * whole seconds and half-seconds, half at random times.
   */
  static void offerTwiceTheLimitInBurstsAroundEdges(
      SlidingWindowLimiter limiter,
      long limit,
      int seconds,
      Random random,
      List<Long> admittedAt,
      List<Long> rejectedAt) {
    List<Long> arrivals = new ArrayList<>();
    for (int s = 0; s < seconds; s++) {
      long base = SECOND + s * SECOND;
      for (long i = 0; i < limit / 2; i++) {
        arrivals.add(base - 1 - random.nextInt(3_000));
        arrivals.add(base + random.nextInt(3_000));
      }
      for (long i = 0; i < limit / 2; i++) {
        arrivals.add(base + SECOND / 2 - 1_500 + random.nextInt(3_000));
      }
      for (long i = 0; i < limit / 2 + 1; i++) {
        arrivals.add(base + (long) (random.nextDouble() * SECOND));
      }
    }
    arrivals.sort(null);
    for (long t : arrivals) {
      if (limiter.tryAcquire(t)) {
        admittedAt.add(t);
      } else {
        rejectedAt.add(t);
      }
    }
  }

  /** The most timestamps in any half-open window {@code [t, t + window)}. */
  static long maxInAnyWindow(List<Long> sortedTimes, long window) {
    List<Long> times = new ArrayList<>(sortedTimes);
    times.sort(null);
    long max = 0;
    int start = 0;
    for (int end = 0; end < times.size(); end++) {
      while (times.get(end) - times.get(start) >= window) {
        start++;
      }
      max = Math.max(max, end - start + 1);
    }
    return max;
  }

  private static long countIn(List<Long> times, long from, long to) {
    return times.stream().filter(t -> t >= from && t < to).count();
  }
}
