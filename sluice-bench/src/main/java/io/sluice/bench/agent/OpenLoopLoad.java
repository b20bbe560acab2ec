package io.sluice.bench.agent;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * Fixed-arrival-rate load, wrk2-style: request {@code i} is due at {@code start + i/rate}, is sent
 * then whatever earlier responses are doing, and its latency counts from when it was due, so a
 * stall of the server shows up as latency instead of as fewer requests (no coordinated omission).
 */
final class OpenLoopLoad {
  record Result(long[] latenciesNanos, int errors, int non200, double seconds) {
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

  /** GET {@code target.apply(i)} for request {@code i}. */
  static Result run(HttpClient http, IntFunction<URI> target, double perSecond, Duration duration)
      throws InterruptedException {
    int total = (int) (perSecond * duration.toSeconds());
    long[] latencies = new long[total];
    AtomicInteger recorded = new AtomicInteger();
    AtomicInteger errors = new AtomicInteger();
    AtomicInteger non200 = new AtomicInteger();
    CompletableFuture<?>[] calls = new CompletableFuture<?>[total];
    double intervalNanos = 1e9 / perSecond;
    long start = System.nanoTime();
    for (int i = 0; i < total; i++) {
      long due = start + (long) (i * intervalNanos);
      long wait;
      while ((wait = due - System.nanoTime()) > 0) {
        LockSupport.parkNanos(wait);
      }
      HttpRequest request =
          HttpRequest.newBuilder(target.apply(i)).timeout(Duration.ofSeconds(10)).build();
      calls[i] =
          http.sendAsync(request, HttpResponse.BodyHandlers.discarding())
              .whenComplete(
                  (response, error) -> {
                    long latency = System.nanoTime() - due;
                    if (error != null) {
                      errors.incrementAndGet();
                      return;
                    }
                    if (response.statusCode() != 200) {
                      non200.incrementAndGet();
                    }
                    latencies[recorded.getAndIncrement()] = latency;
                  });
    }
    try {
      CompletableFuture.allOf(calls).exceptionally(e -> null).get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("responses did not arrive", e);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long[] done = Arrays.copyOf(latencies, recorded.get());
    Arrays.sort(done);
    return new Result(done, errors.get(), non200.get(), seconds);
  }
}
