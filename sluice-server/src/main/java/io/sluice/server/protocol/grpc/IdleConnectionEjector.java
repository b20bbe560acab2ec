package io.sluice.server.protocol.grpc;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.protocol.grpc.ConnectionMessages.ClientDetectionRequest;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Finds connections whose client has gone quiet and checks on them, as Nacos does: a connection
 * with no traffic for {@code idleMillis} gets a {@code ClientDetectionRequest}; no answer within
 * {@code answerMillis} closes it. Healthy clients never get here because they send a health check
 * every 5 s. Each sweep also fails overdue pushes.
 */
public final class IdleConnectionEjector implements AutoCloseable {
  private final ConnectionRegistry registry;
  private final ServerClock clock;
  private final long idleNanos;
  private final long answerMillis;
  private final ScheduledFuture<?> sweeps;

  public IdleConnectionEjector(
      ConnectionRegistry registry,
      ServerClock clock,
      ScheduledExecutorService scheduler,
      long sweepMillis,
      long idleMillis,
      long answerMillis) {
    this.registry = registry;
    this.clock = clock;
    this.idleNanos = TimeUnit.MILLISECONDS.toNanos(idleMillis);
    this.answerMillis = answerMillis;
    this.sweeps =
        scheduler.scheduleWithFixedDelay(
            this::sweep, sweepMillis, sweepMillis, TimeUnit.MILLISECONDS);
  }

  void sweep() {
    long now = clock.nanoTime();
    for (Connection connection : registry.all()) {
      connection.expirePushes(now);
      if (now - connection.lastActiveNanos() >= idleNanos && connection.startProbe()) {
        connection.push(
            new ClientDetectionRequest(),
            answerMillis,
            new PushCallback() {
              @Override
              public void onAcknowledged(NacosResponse response) {
                connection.probeDone();
              }

              @Override
              public void onFailed(String reason) {
                connection.probeDone();
                connection.close("no answer to ClientDetectionRequest: " + reason);
              }
            });
      }
    }
  }

  @Override
  public void close() {
    sweeps.cancel(false);
  }
}
