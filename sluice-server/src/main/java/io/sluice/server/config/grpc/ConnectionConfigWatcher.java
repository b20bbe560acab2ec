package io.sluice.server.config.grpc;

import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ConfigService;
import io.sluice.server.config.ConfigWatcher;
import io.sluice.server.config.grpc.ConfigMessages.ConfigChangeNotifyRequest;
import io.sluice.server.protocol.grpc.Connection;
import io.sluice.server.protocol.grpc.NacosResponse;
import io.sluice.server.protocol.grpc.PushCallback;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The configs one gRPC connection listens to, and the pushes that tell it of changes. At most one
 * notification per config is in flight (or waiting to be sent again); a change meanwhile is sent
 * once more after the answer, so a slow client gets no backlog. A notification the client does not
 * acknowledge in time is sent again, with growing delays, for as long as the connection is open; a
 * missed acknowledgement never closes the connection ({@link PushCallback#retryDelayMillis}).
 */
final class ConnectionConfigWatcher implements ConfigWatcher {
  private final Connection connection;
  private final ConfigService config;
  private final ScheduledExecutorService scheduler;
  private final int maxListens;
  private final long pushAckMillis;

  /** Key to the names the client used, echoed back in notifications (tenant "" vs "public"). */
  private final Map<ConfigKey, String[]> listens = new ConcurrentHashMap<>();

  // Guarded by this: the configs with a notification in flight or waiting to be sent again, and
  // those of them that changed again meanwhile; at most one entry per listened config.
  private final Set<ConfigKey> notifying = new HashSet<>();
  private final Set<ConfigKey> changedAgain = new HashSet<>();

  ConnectionConfigWatcher(
      Connection connection,
      ConfigService config,
      ScheduledExecutorService scheduler,
      int maxListens,
      long pushAckMillis) {
    this.pushAckMillis = pushAckMillis;
    this.connection = connection;
    this.config = config;
    this.scheduler = scheduler;
    this.maxListens = maxListens;
  }

  /** Returns false when the connection already listens to as many configs as allowed. */
  boolean listen(ConfigKey key, String dataId, String group, String tenant) {
    if (!listens.containsKey(key) && listens.size() >= maxListens) {
      return false;
    }
    listens.put(key, new String[] {dataId, group, tenant == null ? "" : tenant});
    config.watch(key, this);
    return true;
  }

  void unlisten(ConfigKey key) {
    if (listens.remove(key) != null) {
      config.unwatch(key, this);
    }
  }

  void unlistenAll() {
    for (ConfigKey key : listens.keySet()) {
      unlisten(key);
    }
  }

  int size() {
    return listens.size();
  }

  @Override
  public String reportedIp() {
    return connection.client().clientIp();
  }

  @Override
  public String remoteIp() {
    return connection.remoteIp();
  }

  @Override
  public void changed(ConfigKey key) {
    synchronized (this) {
      if (!listens.containsKey(key)) {
        return;
      }
      if (!notifying.add(key)) {
        changedAgain.add(key);
        return;
      }
    }
    sendNotification(key, 0);
  }

  /** Sends the notification of {@code key}, after {@code failures} unanswered ones in a row. */
  private void sendNotification(ConfigKey key, int failures) {
    String[] names = listens.get(key);
    if (names == null || connection.isClosed()) {
      synchronized (this) {
        notifying.remove(key);
        changedAgain.remove(key);
      }
      return;
    }
    connection.push(
        new ConfigChangeNotifyRequest(names[0], names[1], names[2]),
        pushAckMillis,
        new PushCallback() {
          @Override
          public void onAcknowledged(NacosResponse response) {
            boolean again;
            synchronized (ConnectionConfigWatcher.this) {
              again = changedAgain.remove(key);
              if (!again) {
                notifying.remove(key);
              }
            }
            if (again) {
              scheduler.execute(() -> sendNotification(key, 0));
            }
          }

          @Override
          public void onFailed(String reason) {
            if (connection.isClosed()) {
              return;
            }
            synchronized (ConnectionConfigWatcher.this) {
              changedAgain.remove(key); // the next notification is sent after that change anyway
            }
            scheduler.schedule(
                () -> sendNotification(key, failures + 1),
                PushCallback.retryDelayMillis(failures + 1),
                TimeUnit.MILLISECONDS);
          }
        });
  }

  @Override
  public String toString() {
    return "grpc:" + connection.id();
  }
}
