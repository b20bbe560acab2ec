package io.sluice.bench.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The open-loop driver against a real HTTP server on loopback. */
class OpenLoopLoadTest {
  private final ExecutorService handlers = Executors.newCachedThreadPool();
  private final CountDownLatch releaseStalled = new CountDownLatch(1);
  private final AtomicInteger stalledSeen = new AtomicInteger();
  private final AtomicInteger healthySeen = new AtomicInteger();
  private final AtomicLong lastSlowArrival = new AtomicLong();
  private HttpServer server;

  @BeforeEach
  void startServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(handlers);
    server.createContext(
        "/stalled",
        exchange -> {
          stalledSeen.incrementAndGet();
          try {
            releaseStalled.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          answer(exchange);
        });
    // Serves one request in 50 ms: 20 a second through one slot.
    server.createContext(
        "/slow",
        exchange -> {
          lastSlowArrival.set(System.nanoTime());
          try {
            Thread.sleep(50);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          answer(exchange);
        });
    server.createContext(
        "/healthy",
        exchange -> {
          healthySeen.incrementAndGet();
          answer(exchange);
        });
    server.start();
  }

  private static void answer(HttpExchange exchange) throws IOException {
    exchange.sendResponseHeaders(200, -1);
    exchange.close();
  }

  @AfterEach
  void stopServer() {
    releaseStalled.countDown();
    server.stop(0);
    handlers.shutdownNow();
  }

  /** Waits up to 8 s (ten times what it takes) for {@code counter} to reach {@code n}. */
  private static void awaitAtLeast(AtomicInteger counter, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
    while (counter.get() < n && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  /** Drives the stalled target and the healthy one together, in the background. */
  private CompletableFuture<List<OpenLoopLoad.Result>> stalledBesideHealthy(
      double perSecond, int seconds, int maxInFlight, Duration giveUpBehind) {
    HttpClient http = ChainOverheadDriver.client();
    URI stalled = uri("/stalled");
    URI healthy = uri("/healthy");
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return OpenLoopLoad.runTogether(
                List.of(http, http),
                List.of(i -> stalled, i -> healthy),
                perSecond,
                Duration.ofSeconds(seconds),
                maxInFlight,
                giveUpBehind);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  @Test
  void aTargetThatStallsDelaysNoneOfTheOtherTargetsRequestsAndSaysHowFarBehindItFell()
      throws Exception {
    // Five requests each, due 200 ms apart; at most two outstanding per target. The stalled
    // target holds its two until released, so its other three wait for a slot.
    CompletableFuture<List<OpenLoopLoad.Result>> run = stalledBesideHealthy(5, 1, 2, null);

    // Every request of the healthy target arrives while the stalled one still holds its slots (a
    // pacer that waited for the stalled target's slots would send the healthy one's third only
    // after the release).
    awaitAtLeast(healthySeen, 5);
    assertThat(healthySeen)
        .as("the healthy target got all five requests while the other was stalled")
        .hasValue(5);
    awaitAtLeast(stalledSeen, 2);
    assertThat(stalledSeen).as("no more than its two slots").hasValue(2);
    releaseStalled.countDown();
    List<OpenLoopLoad.Result> results = run.get(30, TimeUnit.SECONDS);

    OpenLoopLoad.Result stalledResult = results.get(0);
    assertThat(stalledResult.completed()).isEqualTo(5);
    assertThat(stalledResult.errors()).isZero();
    assertThat(stalledResult.lag().waitedForSlot()).isEqualTo(3);
    assertThat(stalledResult.lag().behindAtEndNanos()).isPositive();
    assertThat(stalledResult.lag().maxSlotWaitNanos()).isPositive();
    OpenLoopLoad.Result healthyResult = results.get(1);
    assertThat(healthyResult.completed()).isEqualTo(5);
    assertThat(healthyResult.errors()).isZero();
    assertThat(stalledSeen).hasValue(5);
  }

  @Test
  void aWarmUpKeepsATargetThatCannotKeepUpBusyUntilTheScheduleEndsThenDropsWhatStillWaits()
      throws Exception {
    // 40 requests a second for 3 s through one slot to a target that serves 20 a second.
    HttpClient http = ChainOverheadDriver.client();
    URI slow = uri("/slow");
    long start = System.nanoTime();
    OpenLoopLoad.Result warmed =
        OpenLoopLoad.keepBusy(List.of(http), List.of(i -> slow), 40, Duration.ofSeconds(3), 1)
            .get(0);
    long returned = System.nanoTime();

    // It was sent requests until the end of the schedule, not only until it fell behind...
    assertThat(lastSlowArrival.get() - start)
        .as("the last request's arrival, ns after the start")
        .isGreaterThan(TimeUnit.MILLISECONDS.toNanos(2_500));
    // ...and what still waited then was dropped, not sent late.
    assertThat(warmed.lag().notSent()).isPositive();
    assertThat(warmed.completed() + warmed.lag().notSent()).isEqualTo(120);
    assertThat(warmed.errors()).isZero();
    assertThat(returned - start)
        .as("returned once the one request in flight at the end was answered")
        .isLessThan(TimeUnit.SECONDS.toNanos(10));

    // The same schedule with giving up, as a measured window does it: the target is left idle.
    lastSlowArrival.set(0);
    long again = System.nanoTime();
    OpenLoopLoad.Result givenUp =
        OpenLoopLoad.runTogether(
                List.of(http),
                List.of(i -> slow),
                40,
                Duration.ofSeconds(3),
                1,
                Duration.ofMillis(300))
            .get(0);
    assertThat(givenUp.lag().gaveUpAtNanos()).isPositive();
    assertThat(lastSlowArrival.get() - again).isLessThan(TimeUnit.MILLISECONDS.toNanos(2_500));
    assertThat(givenUp.completed()).isLessThan(warmed.completed());
  }

  @Test
  void aTargetMoreThanTheAllowedLagBehindIsGivenUpWithItsBacklogAndSaysWhen() throws Exception {
    // Thirty requests each over 3 s, one outstanding per target; the stalled target holds its
    // first request, so its second is more than 1 s overdue from about 1.1 s on.
    CompletableFuture<List<OpenLoopLoad.Result>> run =
        stalledBesideHealthy(10, 3, 1, Duration.ofSeconds(1));

    awaitAtLeast(healthySeen, 30);
    assertThat(healthySeen).hasValue(30);
    releaseStalled.countDown();
    List<OpenLoopLoad.Result> results = run.get(30, TimeUnit.SECONDS);

    // Only the request that held the one slot went out: those waiting behind it were dropped
    // when the target was given up, and nothing was offered after.
    OpenLoopLoad.Lag lag = results.get(0).lag();
    assertThat(lag.gaveUpAtNanos()).isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(1));
    assertThat(lag.notSent()).isEqualTo(29);
    assertThat(results.get(0).completed()).isEqualTo(1);
    assertThat(results.get(0).errors()).isZero();
    assertThat(stalledSeen).hasValue(1);
    assertThat(results.get(1).lag().notSent()).as("the healthy target").isZero();
    assertThat(results.get(1).completed()).isEqualTo(30);
  }
}
