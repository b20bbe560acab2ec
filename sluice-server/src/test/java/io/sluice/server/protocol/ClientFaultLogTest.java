package io.sluice.server.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.testing.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

class ClientFaultLogTest {
  private final ManualClock clock = new ManualClock();
  private final List<String> lines = new ArrayList<>();
  private final ClientFaultLog faults = new ClientFaultLog(clock, Runnable::run, lines::add);

  @Test
  void aFloodOfOneCauseWritesOneLineAndThenCountsWhatItHeldBack() {
    for (int i = 0; i < 1_000; i++) {
      faults.note("malformed HTTP request", "peer " + i);
    }
    clock.advance(Duration.ofSeconds(11));
    faults.note("malformed HTTP request", "peer last");

    assertThat(lines)
        .containsExactly(
            "malformed HTTP request: peer 0",
            "malformed HTTP request: peer last (and 999 more in the last 10 s)");
  }

  @Test
  void eachCauseHasItsOwnAllowanceAndLinesStayShortWithoutTraces() {
    faults.note("HTTP connection", new IllegalStateException("x".repeat(10_000) + "\n\tat a.b.C"));
    faults.note("gRPC connection refused", "peer");

    assertThat(lines).hasSize(2);
    assertThat(lines.get(0))
        .startsWith("HTTP connection IllegalStateException: xxx")
        .hasSizeLessThan(300);
    assertThat(lines.get(0)).doesNotContain("at a.b.C");
  }

  @Test
  void aWriterThatIsFullDropsTheLineInsteadOfBlocking() {
    ClientFaultLog full =
        new ClientFaultLog(
            clock,
            task -> {
              throw new RejectedExecutionException("full");
            },
            lines::add);

    full.note("cause", "detail");

    assertThat(lines).isEmpty();
  }
}
