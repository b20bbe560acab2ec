package io.sluice.server.protocol.grpc;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.protocol.grpc.ConnectionMessages.ClientDetectionRequest;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Finds connections whose client has gone quiet and checks on them, as Nacos does: a connection
 * with no traffic for {@code idleMillis} gets a {@code ClientDetectionRequest}; no answer within
 * {@code answerMillis} closes it. Healthy clients never get here because they send a health check
 * every 5 s. Each sweep also fails overdue pushes.
 *
 * <p>A node that stalls (a long GC pause, a starved CPU) or whose event loops fall behind cannot
 * tell a silent client from its own backlog: the client's health checks and answers sit unread in
 * its sockets while the deadlines pass. So a sweep that runs more than {@link #STALL_NANOS} behind
 * its schedule, or finds an event loop that far behind its work ({@link
 * GrpcServer#eventLoopLagNanos}), marks a stall, and a probe whose answer window saw a stall closes
 * nothing: the connection is probed again by a later sweep. (Before this, 4,631 of 5,000 healthy
 * connections to a node making 0.5–5 s GC pauses were closed so, and their next requests answered
 * "Connection is unregistered".) While a node stays behind, a dead client's connection stays until
 * it catches up.
 */
public final class IdleConnectionEjector implements AutoCloseable {
  /**
   * How far a sweep may run behind its schedule, or an event loop behind its work, before the node
   * counts as stalled.
   */
  static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final ConnectionRegistry registry;
  private final ServerClock clock;
  private final long idleNanos;
  private final long answerMillis;
  private final long sweepNanos;
  private final LongSupplier eventLoopLagNanos;
  private final ScheduledFuture<?> sweeps;

  // Written by the sweep only (sweeps never overlap); read by probe callbacks on any thread.
  private long lastSweepNanos;
  private volatile long lastStallNanos;
  private volatile boolean stalledOnce;

  public IdleConnectionEjector(
      ConnectionRegistry registry,
      ServerClock clock,
      ScheduledExecutorService scheduler,
      long sweepMillis,
      long idleMillis,
      long answerMillis,
      LongSupplier eventLoopLagNanos) {
    this.registry = registry;
    this.clock = clock;
    this.idleNanos = TimeUnit.MILLISECONDS.toNanos(idleMillis);
    this.answerMillis = answerMillis;
    this.sweepNanos = TimeUnit.MILLISECONDS.toNanos(sweepMillis);
    this.eventLoopLagNanos = eventLoopLagNanos;
    this.lastSweepNanos = clock.nanoTime();
    this.sweeps =
        scheduler.scheduleWithFixedDelay(
            this::sweep, sweepMillis, sweepMillis, TimeUnit.MILLISECONDS);
  }

  void sweep() {
    long now = clock.nanoTime();
    if (now - lastSweepNanos - sweepNanos > STALL_NANOS
        || eventLoopLagNanos.getAsLong() > STALL_NANOS) {
      lastStallNanos = now;
      stalledOnce = true;
    }
    lastSweepNanos = now;
    for (Connection connection : registry.all()) {
      connection.expirePushes(now);
      if (now - connection.lastActiveNanos() >= idleNanos && connection.startProbe()) {
        long probedAt = now;
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
                if (!stalledSince(probedAt)) {
                  connection.close("no answer to ClientDetectionRequest: " + reason);
                }
              }
            });
      }
    }
  }

  /** Whether a sweep after {@code nanos} found this node behind. */
  boolean stalledSince(long nanos) {
    return stalledOnce && lastStallNanos - nanos > 0;
  }

  @Override
  public void close() {
    sweeps.cancel(false);
  }
}
