package io.sluice.e2e;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Open-loop load: sends requests at a fixed rate for a fixed number of requests, whatever the
 * responses take, and counts the responses by status. The count is over a known number of sends at
 * a known rate, so the checks made on it do not depend on how fast the machine is.
 */
public final class FixedRateLoad {
  private FixedRateLoad() {}

  public record Result(
      Map<Integer, Integer> byStatus, int errors, long firstSendNanos, long lastSendNanos) {
    public int count(int status) {
      return byStatus.getOrDefault(status, 0);
    }

    /** Seconds between the first and the last send. */
    public double sendSpanSeconds() {
      return (lastSendNanos - firstSendNanos) / 1e9;
    }

    @Override
    public String toString() {
      return "statuses "
          + new TreeMap<>(byStatus)
          + ", errors "
          + errors
          + String.format(", sent over %.2f s", sendSpanSeconds());
    }
  }

  public static Result run(HttpClient http, IntFunction<URI> target, double perSecond, int requests)
      throws InterruptedException {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    Map<Integer, Integer> byStatus = new ConcurrentHashMap<>();
    AtomicInteger errors = new AtomicInteger();
    AtomicInteger sent = new AtomicInteger();
    AtomicLong first = new AtomicLong();
    AtomicLong last = new AtomicLong();
    CopyOnWriteArrayList<CompletableFuture<?>> inFlight = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    long periodNanos = (long) (1e9 / perSecond);
    timer.scheduleAtFixedRate(
        () -> {
          int i = sent.getAndIncrement();
          if (i >= requests) {
            done.complete(null);
            return;
          }
          long now = System.nanoTime();
          if (i == 0) {
            first.set(now);
          }
          last.set(now);
          HttpRequest request =
              HttpRequest.newBuilder(target.apply(i)).timeout(Duration.ofSeconds(30)).build();
          inFlight.add(
              http.sendAsync(request, HttpResponse.BodyHandlers.discarding())
                  .whenComplete(
                      (response, error) -> {
                        if (error != null) {
                          errors.incrementAndGet();
                        } else {
                          byStatus.merge(response.statusCode(), 1, Integer::sum);
                        }
                      }));
        },
        0,
        periodNanos,
        TimeUnit.NANOSECONDS);
    try {
      done.get((long) (requests / perSecond * 3) + 30, TimeUnit.SECONDS);
      CompletableFuture.allOf(inFlight.toArray(new CompletableFuture<?>[0]))
          .exceptionally(e -> null)
          .get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("load did not finish", e);
    } finally {
      timer.shutdownNow();
    }
    return new Result(Map.copyOf(byStatus), errors.get(), first.get(), last.get());
  }
}
