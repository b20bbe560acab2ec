package io.sluice.bench.load;

import io.sluice.bench.load.lean.Json;
import io.sluice.bench.load.lean.LeanConnection;
import io.sluice.bench.load.lean.LeanTransport;
import io.sluice.bench.load.lean.PushHandler;
import io.sluice.bench.load.lean.Requests;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The config operations spoken directly on the gRPC port: requests spread round-robin over a few
 * connections, many in flight on each; listeners each on a connection of their own, answering the
 * server's {@code ConfigChangeNotifyRequest} and re-reading the config as the official client does.
 */
final class LeanConfigClient implements ConfigClient {
  private static final String TENANT = "";
  private static final Map<String, String> NOTIFY = Map.of("notify", "true");

  private final LeanTransport transport;
  private final Failures failures;
  private final List<LeanConnection> pool;
  private final AtomicLong next = new AtomicLong();

  LeanConfigClient(LeanTransport transport, int connections, Failures failures) {
    this.transport = transport;
    this.failures = failures;
    this.pool = Connections.open(transport, LeanTransport.configLabels(), connections);
  }

  private LeanConnection pick() {
    return pool.get((int) (next.getAndIncrement() % pool.size()));
  }

  @Override
  public CompletableFuture<?> query(String dataId, String group) {
    LeanConnection c = pick();
    return c.call(
        "ConfigQueryRequest", Requests.configQuery(c.nextRequestId(), dataId, group, TENANT));
  }

  @Override
  public CompletableFuture<?> publish(String dataId, String group, String content) {
    LeanConnection c = pick();
    return c.call(
        "ConfigPublishRequest",
        Requests.configPublish(c.nextRequestId(), dataId, group, TENANT, content));
  }

  @Override
  public AutoCloseable listen(
      List<List<String>> dataIdsPerClient,
      String group,
      Function<String, String> currentMd5,
      ListenEvents events)
      throws Exception {
    PushHandler onChange =
        (connection, push, received) -> {
          if (!push.type().equals("ConfigChangeNotifyRequest")) {
            return;
          }
          String dataId = Json.stringField(push.body(), "dataId");
          String pushedGroup = Json.stringField(push.body(), "group");
          events.notified(dataId, received);
          connection
              .call(
                  "ConfigQueryRequest",
                  NOTIFY,
                  Requests.configQuery(connection.nextRequestId(), dataId, pushedGroup, TENANT))
              .whenComplete(
                  (response, failure) -> {
                    if (failure == null) {
                      events.received(
                          dataId, Json.stringField(response.body(), "content"), System.nanoTime());
                    } else {
                      failures.note(failure);
                    }
                  });
        };
    List<LeanConnection> listeners =
        Connections.open(
            transport, LeanTransport.configLabels(), dataIdsPerClient.size(), onChange);
    List<CompletableFuture<?>> listening = new ArrayList<>();
    for (int i = 0; i < listeners.size(); i++) {
      LeanConnection c = listeners.get(i);
      List<String[]> contexts = new ArrayList<>();
      for (String dataId : dataIdsPerClient.get(i)) {
        contexts.add(new String[] {dataId, group, TENANT, currentMd5.apply(dataId)});
      }
      listening.add(
          c.call(
              "ConfigBatchListenRequest", Requests.configBatchListen(c.nextRequestId(), contexts)));
    }
    CompletableFuture.allOf(listening.toArray(CompletableFuture[]::new)).join();
    return () -> listeners.forEach(LeanConnection::close);
  }

  @Override
  public void close() {
    pool.forEach(LeanConnection::close);
  }
}
