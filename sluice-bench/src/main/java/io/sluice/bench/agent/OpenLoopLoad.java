package io.sluice.bench.agent;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * Fixed-arrival-rate load, wrk2-style: request {@code i} is due at {@code start + i/rate}, is sent
 * then whatever earlier responses are doing, and its latency counts from when it was due, so a
 * stall of the server shows up as latency instead of as fewer requests (no coordinated omission).
 *
 * <p>{@link #runTogether} drives several targets from one schedule: request {@code i} of every
 * target is due at the same instant (sent one after the other, the first one rotating with {@code
 * i} so no target is always second), and each target's latency is kept by request number, so two
 * copies of a system can be compared request by request over the same moments of the machine.
 * There, as wrk2 keeps a fixed set of connections, at most {@code maxInFlight} requests per target
 * are outstanding: a request due while that many are still out is sent when one returns, and its
 * latency still counts from its due time. That bounds the connections a stalled target is sent, so
 * a backlog does not leave behind thousands of connections and the memory they held.
 */
final class OpenLoopLoad {
  /**
   * One target's responses: latencies sorted ({@code latenciesNanos}), and by request number
   * ({@code byRequestNanos}, -1 where the request failed).
   */
  record Result(
      long[] latenciesNanos, long[] byRequestNanos, int errors, int non200, double seconds) {
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

  private OpenLoopLoad() {}

  /** GET {@code baseUrl/orders/{i % 1000}} (the e2e test application's route). */
  static Result run(HttpClient http, String baseUrl, double perSecond, Duration duration)
      throws InterruptedException {
    return run(http, i -> URI.create(baseUrl + "/orders/" + (i % 1000)), perSecond, duration);
  }

  /** GET {@code target.apply(i)} for request {@code i}, outstanding requests unbounded. */
  static Result run(HttpClient http, IntFunction<URI> target, double perSecond, Duration duration)
      throws InterruptedException {
    return runTogether(List.of(http), List.of(target), perSecond, duration, Integer.MAX_VALUE)
        .get(0);
  }

  /**
   * GET {@code targets.get(t).apply(i)} through {@code clients.get(t)} for request {@code i} of
   * every target {@code t}, all due at the same instants; results in the targets' order.
   */
  static List<Result> runTogether(
      List<HttpClient> clients,
      List<IntFunction<URI>> targets,
      double perSecond,
      Duration duration,
      int maxInFlight)
      throws InterruptedException {
    int n = targets.size();
    int total = (int) (perSecond * duration.toSeconds());
    List<Target> all = new ArrayList<>();
    for (int t = 0; t < n; t++) {
      all.add(new Target(clients.get(t), targets.get(t), total, maxInFlight));
    }
    double intervalNanos = 1e9 / perSecond;
    long start = System.nanoTime();
    for (int i = 0; i < total; i++) {
      long due = start + (long) (i * intervalNanos);
      long wait;
      while ((wait = due - System.nanoTime()) > 0) {
        LockSupport.parkNanos(wait);
      }
      for (int k = 0; k < n; k++) {
        all.get((i + k) % n).send(i, due);
      }
    }
    List<Result> results = new ArrayList<>();
    for (Target target : all) {
      results.add(target.await(start));
    }
    return results;
  }

  /** One target's requests in flight and what came back. */
  private static final class Target {
    private final HttpClient http;
    private final IntFunction<URI> uri;
    private final Semaphore inFlight;
    private final long[] byRequest;
    private final CompletableFuture<?>[] calls;
    private final AtomicInteger errors = new AtomicInteger();
    private final AtomicInteger non200 = new AtomicInteger();

    Target(HttpClient http, IntFunction<URI> uri, int total, int maxInFlight) {
      this.http = http;
      this.uri = uri;
      this.inFlight = new Semaphore(maxInFlight);
      this.byRequest = new long[total];
      this.calls = new CompletableFuture<?>[total];
      Arrays.fill(byRequest, -1);
    }

    void send(int i, long due) throws InterruptedException {
      inFlight.acquire();
      HttpRequest request =
          HttpRequest.newBuilder(uri.apply(i)).timeout(Duration.ofSeconds(10)).build();
      calls[i] =
          http.sendAsync(request, HttpResponse.BodyHandlers.discarding())
              .whenComplete(
                  (response, error) -> {
                    long latency = System.nanoTime() - due;
                    inFlight.release();
                    if (error != null) {
                      errors.incrementAndGet();
                      return;
                    }
                    if (response.statusCode() != 200) {
                      non200.incrementAndGet();
                    }
                    byRequest[i] = latency;
                  });
    }

    Result await(long start) {
      try {
        CompletableFuture.allOf(calls).exceptionally(e -> null).get(60, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException("responses did not arrive", e);
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      long[] done = Arrays.stream(byRequest).filter(l -> l >= 0).sorted().toArray();
      return new Result(done, byRequest, errors.get(), non200.get(), seconds);
    }
  }
}
