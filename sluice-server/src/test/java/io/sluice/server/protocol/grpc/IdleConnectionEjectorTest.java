package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.sluice.server.testing.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The idle probe's decision, sweep by sweep on a manual clock: a probe left unanswered closes the
 * connection, unless the node itself was behind (an event loop over 1 s behind its work, or a sweep
 * over 1 s late) during the probe's window, when the client's answer may be sitting unread. The
 * connection's stream is the only stand-in: a gRPC call that records what is sent on it.
 */
class IdleConnectionEjectorTest {
  private static final Duration IDLE = Duration.ofSeconds(20);
  private static final Duration ANSWER = Duration.ofSeconds(5);
  private static final long SWEEP_MILLIS = 500;

  private final ManualClock clock = new ManualClock();
  private final AtomicLong eventLoopLagNanos = new AtomicLong();
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final ConnectionRegistry registry =
      new ConnectionRegistry(clock, new MessageCodec(), 10, 10);
  private final RecordingCall stream = new RecordingCall();
  private final Connection connection =
      registry.register(
          "1_127.0.0.1_1_1",
          "127.0.0.1",
          1,
          new ClientInfo("127.0.0.1", "test", "naming", "", "", Map.of()),
          stream);
  // Sweeps are called by the test; the scheduled ones would come only after a day.
  private final IdleConnectionEjector ejector =
      new IdleConnectionEjector(
          registry,
          clock,
          scheduler,
          TimeUnit.DAYS.toMillis(1),
          IDLE.toMillis(),
          ANSWER.toMillis(),
          eventLoopLagNanos::get);

  @AfterEach
  void stop() {
    ejector.close();
    scheduler.shutdownNow();
  }

  @Test
  void closesAConnectionWhoseProbeGoesUnansweredOnANodeThatKeptUp() {
    probe();

    clock.advance(ANSWER.plusMillis(SWEEP_MILLIS));
    ejector.sweep();

    assertThat(connection.isClosed()).isTrue();
    assertThat(registry.get(connection.id())).isNull();
  }

  @Test
  void keepsAConnectionWhoseProbeWindowSawAnEventLoopFallBehind() {
    probe();

    eventLoopLagNanos.set(TimeUnit.SECONDS.toNanos(2));
    clock.advance(ANSWER.plusMillis(SWEEP_MILLIS));
    ejector.sweep();

    assertThat(connection.isClosed()).isFalse();
    assertThat(registry.get(connection.id())).isSameAs(connection);
    // Still silent: probed again at once; once the node has caught up, that probe unanswered
    // closes it.
    assertThat(stream.sentTypes())
        .containsExactly("ClientDetectionRequest", "ClientDetectionRequest");
    eventLoopLagNanos.set(0);
    clock.advance(ANSWER.plusMillis(SWEEP_MILLIS));
    ejector.sweep();
    assertThat(connection.isClosed()).isTrue();
  }

  /** The connection goes quiet for the idle timeout; the next sweep probes it. */
  private void probe() {
    ejector.sweep();
    clock.advance(IDLE);
    ejector.sweep();
    assertThat(stream.sentTypes()).containsExactly("ClientDetectionRequest");
  }

  /** A push stream that records the types of the messages sent on it. */
  private static final class RecordingCall implements PushStream {
    private final List<String> sent = new CopyOnWriteArrayList<>();

    List<String> sentTypes() {
      return sent;
    }

    @Override
    public void send(Payload message) {
      sent.add(message.type());
    }

    @Override
    public void close(Status.Code code, String description) {}
  }
}
