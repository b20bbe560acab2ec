package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.agent.logging.AgentLog;
import io.sluice.flow.BreakerState;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BreakerLogTest {
  private final AtomicLong nanos = new AtomicLong();
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final BreakerLog breakers =
      new BreakerLog(
          AgentLog.toStream(
              new PrintStream(bytes, true, StandardCharsets.UTF_8), AgentLog.Level.INFO),
          nanos::get);

  private String[] lines() {
    String text = bytes.toString(StandardCharsets.UTF_8);
    return text.isEmpty() ? new String[0] : text.split("\\R");
  }

  @Test
  void logsEachStateChangeOnOneLine() {
    breakers.onStateChange(
        "GET /work", "degrade rule {...}", BreakerState.CLOSED, BreakerState.OPEN);
    breakers.onStateChange(
        "GET /work", "degrade rule {...}", BreakerState.OPEN, BreakerState.HALF_OPEN);

    assertThat(lines()).hasSize(2);
    assertThat(lines()[0])
        .contains("WARN")
        .endsWith(
            "breaker OPEN (was CLOSED) on GET /work: degrade rule {...}; calls are refused until it"
                + " half-opens");
    assertThat(lines()[1])
        .contains("INFO")
        .endsWith("breaker HALF_OPEN (was OPEN) on GET /work: degrade rule {...}");
  }

  @Test
  void writesAtMostTheBudgetPerWindowAndCountsWhatItLeftOut() {
    for (int i = 0; i < 25; i++) {
      breakers.onStateChange("r", "rule", BreakerState.OPEN, BreakerState.HALF_OPEN);
    }
    assertThat(lines()).hasSize(BreakerLog.LINES_PER_WINDOW);

    nanos.addAndGet(BreakerLog.WINDOW_NANOS);
    breakers.onStateChange("r", "rule", BreakerState.HALF_OPEN, BreakerState.CLOSED);

    assertThat(lines()).hasSize(BreakerLog.LINES_PER_WINDOW + 1);
    assertThat(lines()[BreakerLog.LINES_PER_WINDOW])
        .contains("(15 earlier state changes not logged: more than 10 in 10 s)");
  }
}
