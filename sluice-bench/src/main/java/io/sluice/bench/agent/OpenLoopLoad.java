package io.sluice.bench.agent;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * Fixed-arrival-rate load, wrk2-style: request {@code i} is due at {@code start + i/rate}, is sent
 * then whatever earlier responses are doing, and its latency counts from when it was due, so a
 * stall of the server shows up as latency instead of as fewer requests (no coordinated omission).
 *
 * <p>{@link #runTogether} drives several targets from one schedule: request {@code i} of every
 * target is due at the same instant (offered one after the other, the first one rotating with
 * {@code i} so no target is always second), and each target's latency is kept by request number, so
 * two copies of a system can be compared request by request over the same moments of the machine.
 * There, as wrk2 keeps a fixed set of connections, at most {@code maxInFlight} requests per target
 * are outstanding: a request due while that many are still out waits in its target's own queue and
 * is sent when one of that target's requests returns; its latency still counts from its due time.
 * That bounds the connections a stalled target is sent, so a backlog does not leave behind
 * thousands of connections and the memory they held.
 *
 * <p>Invariants: the targets are independent. The pacer never waits for a target's slot (it only
 * queues), so a target that falls behind delays none of the others' requests. A target whose oldest
 * waiting request is more than {@code giveUpBehind} overdue is given up for the rest of the run:
 * its waiting requests are dropped and it is offered nothing more (all counted as not sent), so an
 * overload ends once its requests in flight are answered, instead of running on, at the target's
 * full concurrency, until every request of the schedule has gone out. Every result says how far
 * behind its target fell ({@link Lag}) and how late the pacer itself was (the driver JVM's own
 * scheduling, common to all targets).
 *
 * <p>A warm-up wants the opposite of giving up: {@link #keepBusy} offers the same schedule, never
 * gives a target up, and keeps one that cannot keep up at {@code maxInFlight} outstanding until the
 * schedule ends, when its waiting requests are dropped (counted as not sent). A cold JVM then
 * serves as many requests as it can for the whole warm-up, instead of a few seconds' worth before
 * it is given up and left idle; and no backlog runs on past the end.
 */
final class OpenLoopLoad {
  /** How far behind its oldest waiting request may fall before a target is given up by default. */
  static final Duration GIVE_UP_BEHIND = Duration.ofSeconds(10);

  /**
   * How far a target fell behind its schedule in one run: {@code waitedForSlot} of its requests
   * were due while all its slots were taken ({@code maxSlotWaitNanos} the longest such wait); its
   * last request sent went out {@code behindAtEndNanos} after it was due, and the 99th percentile
   * of send time minus due time was {@code p99SendLagNanos}, whatever the reason; {@code
   * driverLateMaxNanos} is the most the pacer itself woke after a due time (alike for every
   * target); the last answer came {@code drainedNanos} after the last due time. {@code notSent}
   * requests were not sent because the target was given up {@code gaveUpAtNanos} into the run (-1
   * when it was not).
   */
  record Lag(
      int waitedForSlot,
      long maxSlotWaitNanos,
      long behindAtEndNanos,
      long p99SendLagNanos,
      long driverLateMaxNanos,
      long drainedNanos,
      int notSent,
      long gaveUpAtNanos) {
    static final Lag NONE = new Lag(0, 0, 0, 0, 0, 0, 0, -1);
  }

  /**
   * One target's responses: latencies sorted ({@code latenciesNanos}), and by request number
   * ({@code byRequestNanos}, -1 where the request failed or was not sent), and how far it fell
   * behind.
   */
  record Result(
      long[] latenciesNanos,
      long[] byRequestNanos,
      int errors,
      int non200,
      double seconds,
      Lag lag) {
    double percentileMicros(double p) {
      if (latenciesNanos.length == 0) {
        return Double.NaN;
      }
      int index =
          (int) Math.min(latenciesNanos.length - 1, Math.ceil(p * latenciesNanos.length) - 1);
      return latenciesNanos[Math.max(0, index)] / 1000.0;
    }

    int completed() {
      return latenciesNanos.length;
    }
  }

  /** How long {@link #runTogether} waits for answers once none arrives. */
  private static final Duration SILENCE = Duration.ofSeconds(60);

  private OpenLoopLoad() {}

  /** GET {@code baseUrl/orders/{i % 1000}} (the e2e test application's route). */
  static Result run(HttpClient http, String baseUrl, double perSecond, Duration duration)
      throws InterruptedException {
    return run(http, i -> URI.create(baseUrl + "/orders/" + (i % 1000)), perSecond, duration);
  }

  /** GET {@code target.apply(i)} for request {@code i}, outstanding requests unbounded. */
  static Result run(HttpClient http, IntFunction<URI> target, double perSecond, Duration duration)
      throws InterruptedException {
    return runTogether(List.of(http), List.of(target), perSecond, duration, Integer.MAX_VALUE, null)
        .get(0);
  }

  /**
   * Like {@link #runTogether}, for a warm-up: no target is given up; one that cannot keep up stays
   * at {@code maxInFlight} outstanding until the schedule ends, and what still waits then is
   * dropped ({@link Lag#notSent}). Returns once the requests in flight at the end are answered.
   */
  static List<Result> keepBusy(
      List<HttpClient> clients,
      List<IntFunction<URI>> targets,
      double perSecond,
      Duration duration,
      int maxInFlight)
      throws InterruptedException {
    return drive(clients, targets, perSecond, duration, maxInFlight, null, true);
  }

  /**
   * GET {@code targets.get(t).apply(i)} through {@code clients.get(t)} for request {@code i} of
   * every target {@code t}, all due at the same instants; results in the targets' order. A target
   * more than {@code giveUpBehind} behind (null: never) is offered nothing more. Returns once every
   * request sent has been answered or has failed; throws if answers stop arriving for a minute.
   */
  static List<Result> runTogether(
      List<HttpClient> clients,
      List<IntFunction<URI>> targets,
      double perSecond,
      Duration duration,
      int maxInFlight,
      Duration giveUpBehind)
      throws InterruptedException {
    return drive(clients, targets, perSecond, duration, maxInFlight, giveUpBehind, false);
  }

  private static List<Result> drive(
      List<HttpClient> clients,
      List<IntFunction<URI>> targets,
      double perSecond,
      Duration duration,
      int maxInFlight,
      Duration giveUpBehind,
      boolean dropWaitingAtEnd)
      throws InterruptedException {
    int n = targets.size();
    int total = (int) (perSecond * duration.toSeconds());
    long giveUpNanos = giveUpBehind == null ? Long.MAX_VALUE : giveUpBehind.toNanos();
    Schedule schedule = new Schedule(System.nanoTime(), 1e9 / perSecond, total);
    List<Target> all = new ArrayList<>();
    for (int t = 0; t < n; t++) {
      all.add(new Target(clients.get(t), targets.get(t), schedule, maxInFlight, giveUpNanos));
    }
    for (int i = 0; i < total; i++) {
      long due = schedule.due(i);
      long wait;
      while ((wait = due - System.nanoTime()) > 0) {
        LockSupport.parkNanos(wait);
      }
      schedule.offeredAt[i] = System.nanoTime();
      for (int k = 0; k < n; k++) {
        all.get((i + k) % n).offer(i);
      }
    }
    if (dropWaitingAtEnd) {
      for (Target target : all) {
        target.dropWaiting();
      }
    }
    List<Result> results = new ArrayList<>();
    for (Target target : all) {
      results.add(target.await());
    }
    return results;
  }

  /** When each request is due, and when the pacer offered it (to every target at once). */
  private static final class Schedule {
    final long start;
    final double intervalNanos;
    final int total;
    // Written by the pacer before it offers request i to any target; read after (happens-before
    // through each target's volatile offered count).
    final long[] offeredAt;

    Schedule(long start, double intervalNanos, int total) {
      this.start = start;
      this.intervalNanos = intervalNanos;
      this.total = total;
      this.offeredAt = new long[total];
    }

    long due(int i) {
      return start + (long) (i * intervalNanos);
    }
  }

  /**
   * One target's requests: those offered but not sent (the range {@code claimed..offered}, sent
   * oldest first), those in flight (at most {@code maxInFlight}, counted by {@code slots}), and
   * what came back.
   *
   * <p>Concurrency: {@code offered}, {@code offering} and {@code gaveUpAt} are written by the pacer
   * only; {@code claimed} is advanced by whichever thread holds a slot (the pacer, or an HTTP
   * client thread that just got an answer). Each side publishes (a new offer, a freed slot) before
   * it tries to claim, so no offered request is left waiting while a slot is free.
   */
  private static final class Target {
    private final HttpClient http;
    private final IntFunction<URI> uri;
    private final Schedule schedule;
    private final Semaphore slots;
    private final long giveUpNanos;
    private final Thread pacer = Thread.currentThread();
    private final long[] byRequest;
    private final long[] sentAt;
    private final AtomicInteger claimed = new AtomicInteger();
    private volatile int offered;
    private int offering = -1;
    private long gaveUpAt = -1;
    private int sentBeforeGivingUp;
    // Set by the pacer when it gives this target up: slot holders then send nothing more.
    private volatile boolean givenUp;
    private final AtomicInteger errors = new AtomicInteger();
    private final AtomicInteger non200 = new AtomicInteger();
    private final AtomicInteger waitedForSlot = new AtomicInteger();
    private final AtomicLong lastAnswer = new AtomicLong();
    private final CountDownLatch answered;

    Target(
        HttpClient http,
        IntFunction<URI> uri,
        Schedule schedule,
        int maxInFlight,
        long giveUpNanos) {
      this.http = http;
      this.uri = uri;
      this.schedule = schedule;
      this.slots = new Semaphore(maxInFlight);
      this.giveUpNanos = giveUpNanos;
      this.byRequest = new long[schedule.total];
      this.sentAt = new long[schedule.total];
      this.answered = new CountDownLatch(schedule.total);
      Arrays.fill(byRequest, -1);
    }

    /**
     * Request {@code i} is due: sent now if a slot is free, else when one frees; not at all once
     * this target is given up.
     */
    void offer(int i) {
      if (gaveUpAt >= 0) {
        answered.countDown();
        return;
      }
      int oldestWaiting = claimed.get();
      if (oldestWaiting < i && schedule.offeredAt[i] - schedule.due(oldestWaiting) > giveUpNanos) {
        gaveUpAt = schedule.offeredAt[i] - schedule.start;
        giveUp(i);
        return;
      }
      offering = i;
      offered = i + 1;
      drain();
    }

    /**
     * Offers nothing more, and drops the requests still waiting (request {@code i}, being offered,
     * included): the run has failed already, and sending a backlog worth {@code giveUpBehind} would
     * keep the target overloaded about as long again. Those in flight end normally.
     */
    private void giveUp(int i) {
      givenUp = true;
      int waiting;
      while ((waiting = claimed.get()) < offered && !claimed.compareAndSet(waiting, offered)) {
        // a slot holder claimed one meanwhile: that one is sent; drop from the next
      }
      sentBeforeGivingUp = waiting;
      for (int dropped = waiting; dropped <= i; dropped++) {
        answered.countDown();
      }
    }

    /**
     * The schedule has ended: what still waits for a slot is dropped (not sent), those in flight
     * end normally. Called by the pacer after its last offer.
     */
    void dropWaiting() {
      if (givenUp) {
        return;
      }
      givenUp = true;
      int waiting;
      while ((waiting = claimed.get()) < offered && !claimed.compareAndSet(waiting, offered)) {
        // a slot holder claimed one meanwhile: that one is sent; drop from the next
      }
      sentBeforeGivingUp = waiting;
      for (int dropped = waiting; dropped < offered; dropped++) {
        answered.countDown();
      }
    }

    /** Sends offered requests, oldest first, while slots are free. */
    private void drain() {
      while (true) {
        int i = claimed.get();
        if (givenUp || i >= offered || !slots.tryAcquire()) {
          return;
        }
        if (!claimed.compareAndSet(i, i + 1)) {
          slots.release();
          continue;
        }
        send(i);
      }
    }

    private void send(int i) {
      long due = schedule.due(i);
      sentAt[i] = System.nanoTime();
      // Sent other than by the pacer as it offered it: it waited for a slot.
      if (Thread.currentThread() != pacer || i != offering) {
        waitedForSlot.incrementAndGet();
      }
      try {
        HttpRequest request =
            HttpRequest.newBuilder(uri.apply(i)).timeout(Duration.ofSeconds(10)).build();
        http.sendAsync(request, HttpResponse.BodyHandlers.discarding())
            .whenComplete(
                (response, error) -> {
                  long now = System.nanoTime();
                  if (error != null) {
                    errors.incrementAndGet();
                  } else {
                    if (response.statusCode() != 200) {
                      non200.incrementAndGet();
                    }
                    byRequest[i] = now - due;
                  }
                  answer(now);
                });
      } catch (RuntimeException e) {
        errors.incrementAndGet();
        answer(System.nanoTime());
      }
    }

    /** A request ended: its slot goes to the next one waiting, if any. */
    private void answer(long now) {
      lastAnswer.accumulateAndGet(now, Math::max);
      answered.countDown();
      slots.release();
      drain();
    }

    Result await() throws InterruptedException {
      long before = answered.getCount();
      while (!answered.await(SILENCE.toMillis(), TimeUnit.MILLISECONDS)) {
        long now = answered.getCount();
        if (now == before) {
          throw new IllegalStateException(
              now + " responses did not arrive, none for " + SILENCE.toSeconds() + " s");
        }
        before = now;
      }
      double seconds = (System.nanoTime() - schedule.start) / 1e9;
      long[] done = Arrays.stream(byRequest).filter(l -> l >= 0).sorted().toArray();
      return new Result(done, byRequest, errors.get(), non200.get(), seconds, lag());
    }

    /** How far behind this target fell; read once every request sent was answered. */
    private Lag lag() {
      // Requests are sent in order: 0..sent-1 went out, the rest did not.
      int sent = givenUp ? sentBeforeGivingUp : claimed.get();
      if (sent == 0) {
        return new Lag(0, 0, 0, 0, 0, 0, schedule.total, gaveUpAt);
      }
      long[] sendLag = new long[sent];
      long maxSlotWait = 0;
      long driverLate = 0;
      for (int i = 0; i < sent; i++) {
        long due = schedule.due(i);
        sendLag[i] = Math.max(0, sentAt[i] - due);
        maxSlotWait = Math.max(maxSlotWait, sentAt[i] - schedule.offeredAt[i]);
        driverLate = Math.max(driverLate, schedule.offeredAt[i] - due);
      }
      long behindAtEnd = sendLag[sent - 1];
      Arrays.sort(sendLag);
      int p99 = (int) Math.min(sent - 1, Math.ceil(0.99 * sent) - 1);
      return new Lag(
          waitedForSlot.get(),
          maxSlotWait,
          behindAtEnd,
          sendLag[Math.max(0, p99)],
          driverLate,
          Math.max(0, lastAnswer.get() - schedule.due(sent - 1)),
          schedule.total - sent,
          gaveUpAt);
    }
  }
}
