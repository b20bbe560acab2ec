package io.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LoadLoopTest {
  private final ScheduledExecutorService server = Executors.newScheduledThreadPool(4);
  private final Failures failures = new Failures(System.err);

  @AfterEach
  void stop() {
    server.shutdownNow();
  }

  @Test
  void keepsExactlyTheConcurrencyInFlightInAClosedLoop() throws Exception {
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    LoadLoop.Operation operation =
        seq -> {
          most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
          CompletableFuture<Void> done = new CompletableFuture<>();
          server.schedule(
              () -> {
                inFlight.decrementAndGet();
                done.complete(null);
              },
              1,
              TimeUnit.MILLISECONDS);
          return done;
        };
    LatencyStats stats = new LatencyStats();

    Measurement.Window window =
        LoadLoop.run(
            new LoadLoop.Closed(5),
            operation,
            stats,
            new Measurement(null, Map.of("ops", stats)),
            Warmup.fixed(Duration.ofMillis(50)),
            Duration.ofMillis(200),
            failures);

    assertThat(most.get()).isEqualTo(5);
    assertThat(window.main().count()).isPositive();
    assertThat(window.main().errors()).isZero();
  }

  @Test
  void countsFailuresApartFromLatencies() throws Exception {
    LoadLoop.Operation failing =
        seq ->
            seq % 2 == 0
                ? CompletableFuture.completedFuture(null)
                : CompletableFuture.failedFuture(new IllegalStateException("refused"));
    LatencyStats stats = new LatencyStats();

    Measurement.Window window =
        LoadLoop.run(
            new LoadLoop.Open(1_000, 100),
            failing,
            stats,
            new Measurement(null, Map.of("ops", stats)),
            Warmup.fixed(Duration.ZERO),
            Duration.ofMillis(300),
            failures);

    assertThat(window.main().errors()).isPositive();
    assertThat(window.main().count()).isPositive();
    assertThat(Math.abs(window.main().errors() - window.main().count())).isLessThanOrEqualTo(2);
    assertThat(failures.drain()).containsKey("IllegalStateException: refused");
  }

  @Test
  void padsContentToTheExactSize() {
    assertThat(ConfigScenarios.content('u', 5, 10)).isEqualTo("u000000005");
    assertThat(ConfigScenarios.content('u', 1234567890123L, 10)).hasSize(10);
    assertThat(NamingScenarios.metadata(100).entrySet().iterator().next())
        .satisfies(e -> assertThat(e.getKey().length() + e.getValue().length()).isEqualTo(100));
  }
}
