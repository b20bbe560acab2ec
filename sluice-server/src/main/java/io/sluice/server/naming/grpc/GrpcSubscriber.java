package io.sluice.server.naming.grpc;

import io.sluice.server.naming.ServiceKey;
import io.sluice.server.naming.ServiceView;
import io.sluice.server.naming.Subscriber;
import io.sluice.server.protocol.grpc.ClientInfo;
import io.sluice.server.protocol.grpc.Connection;
import io.sluice.server.protocol.grpc.NacosResponse;
import io.sluice.server.protocol.grpc.PushCallback;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * One gRPC connection's subscription to one service: pushes {@code NotifySubscriberRequest}s on the
 * connection's stream.
 *
 * <p>At most one push is in flight per subscription. A change during a push marks it stale, and the
 * newest snapshot follows the acknowledgement, so a slow client receives fewer, newer pushes, never
 * a backlog. An unanswered push is sent again, with the newest snapshot, after growing delays for
 * as long as the connection is open; a missed acknowledgement never closes the connection ({@link
 * PushCallback#retryDelayMillis}).
 */
final class GrpcSubscriber implements Subscriber {
  private static final byte[] SERVICE_INFO_FIELD =
      "\"serviceInfo\":".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] PUSH_END =
      ",\"module\":\"naming\",\"headers\":{}}".getBytes(StandardCharsets.US_ASCII);

  private final Connection connection;
  private final ServiceKey service;
  private final ScheduledExecutorService pushThread;
  private final PushStats stats;
  private final long pushAckMillis;
  private volatile String clusters;
  private volatile boolean active = true;

  // Guarded by this.
  private boolean inFlight;
  private ServiceView next;
  private int failures;

  GrpcSubscriber(
      Connection connection,
      ServiceKey service,
      String clusters,
      ScheduledExecutorService pushThread,
      PushStats stats,
      long pushAckMillis) {
    this.pushAckMillis = pushAckMillis;
    this.connection = connection;
    this.service = service;
    this.clusters = clusters == null ? "" : clusters;
    this.pushThread = pushThread;
    this.stats = stats;
  }

  Connection connection() {
    return connection;
  }

  void clusters(String clusters) {
    this.clusters = clusters == null ? "" : clusters;
  }

  void cancel() {
    active = false;
  }

  @Override
  public Client client() {
    ClientInfo info = connection.client();
    String ip =
        info.clientIp() == null || info.clientIp().isBlank()
            ? connection.remoteIp()
            : info.clientIp();
    return new Client(
        ip,
        connection.remotePort(),
        info.clientVersion() == null ? "" : info.clientVersion(),
        info.appName() == null ? "" : info.appName(),
        clusters);
  }

  @Override
  public String clusters() {
    return clusters;
  }

  @Override
  public void serviceChanged(ServiceView view) {
    if (!active || connection.isClosed()) {
      return;
    }
    synchronized (this) {
      if (inFlight) {
        next = view;
        return;
      }
      inFlight = true;
    }
    send(view);
  }

  private void send(ServiceView view) {
    byte[] serviceInfo = view.serviceInfoUtf8(clusters, false, false);
    byte[] body = new byte[SERVICE_INFO_FIELD.length + serviceInfo.length + PUSH_END.length];
    System.arraycopy(SERVICE_INFO_FIELD, 0, body, 0, SERVICE_INFO_FIELD.length);
    System.arraycopy(serviceInfo, 0, body, SERVICE_INFO_FIELD.length, serviceInfo.length);
    System.arraycopy(
        PUSH_END, 0, body, SERVICE_INFO_FIELD.length + serviceInfo.length, PUSH_END.length);
    stats.pushes.increment();
    stats.bytes.add(body.length);
    connection.pushEncoded(
        "NotifySubscriberRequest",
        body,
        pushAckMillis,
        new PushCallback() {
          @Override
          public void onAcknowledged(NacosResponse response) {
            ServiceView following;
            synchronized (GrpcSubscriber.this) {
              failures = 0;
              following = next;
              next = null;
              inFlight = following != null;
            }
            if (following != null) {
              pushThread.execute(() -> send(following));
            }
          }

          @Override
          public void onFailed(String reason) {
            stats.failures.increment();
            if (!active || connection.isClosed()) {
              return;
            }
            int attempts;
            synchronized (GrpcSubscriber.this) {
              attempts = ++failures;
            }
            pushThread.schedule(
                () -> {
                  ServiceView newest;
                  synchronized (GrpcSubscriber.this) {
                    newest = next != null ? next : view;
                    next = null;
                  }
                  if (active && !connection.isClosed()) {
                    send(newest);
                  }
                },
                PushCallback.retryDelayMillis(attempts),
                TimeUnit.MILLISECONDS);
          }
        });
  }

  @Override
  public String toString() {
    return "grpc:" + connection.id() + "->" + service;
  }

  /** Counters of what the naming pushes sent, for metrics and benchmarks. */
  static final class PushStats {
    final LongAdder pushes = new LongAdder();
    final LongAdder bytes = new LongAdder();
    final LongAdder failures = new LongAdder();
  }
}
