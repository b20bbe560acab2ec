package io.sluice.server.config.grpc;

import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ConfigService;
import io.sluice.server.config.ConfigWatcher;
import io.sluice.server.config.grpc.ConfigMessages.ConfigChangeNotifyRequest;
import io.sluice.server.protocol.grpc.Connection;
import io.sluice.server.protocol.grpc.NacosResponse;
import io.sluice.server.protocol.grpc.PushCallback;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The configs one gRPC connection listens to, and the pushes that tell it of changes. A push the
 * client does not acknowledge is retried a few times with growing delays; after that the connection
 * is closed, and the client reconnects and compares md5s again, so no change is lost and nothing
 * piles up for a client that stopped answering.
 */
final class ConnectionConfigWatcher implements ConfigWatcher {
  static final int PUSH_ATTEMPTS = 3;

  private final Connection connection;
  private final ConfigService config;
  private final ScheduledExecutorService scheduler;
  private final int maxListens;
  private final long pushAckMillis;

  /** Key to the names the client used, echoed back in notifications (tenant "" vs "public"). */
  private final Map<ConfigKey, String[]> listens = new ConcurrentHashMap<>();

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
    String[] names = listens.get(key);
    if (names != null) {
      push(names, 1);
    }
  }

  private void push(String[] names, int attempt) {
    connection.push(
        new ConfigChangeNotifyRequest(names[0], names[1], names[2]),
        pushAckMillis,
        new PushCallback() {
          @Override
          public void onAcknowledged(NacosResponse response) {}

          @Override
          public void onFailed(String reason) {
            if (connection.isClosed()) {
              return;
            }
            if (attempt >= PUSH_ATTEMPTS) {
              connection.close(
                  "config change not acknowledged after " + attempt + " attempts: " + reason);
              return;
            }
            scheduler.schedule(
                () -> push(names, attempt + 1), 500L << attempt, TimeUnit.MILLISECONDS);
          }
        });
  }

  @Override
  public String toString() {
    return "grpc:" + connection.id();
  }
}
