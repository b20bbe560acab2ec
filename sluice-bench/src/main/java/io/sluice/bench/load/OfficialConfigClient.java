package io.sluice.bench.load;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.config.listener.Listener;
import com.alibaba.nacos.api.exception.NacosException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The config operations through the official {@code nacos-client}: a few {@link ConfigService}
 * instances (one gRPC connection each) shared by a pool of threads, because the client's calls
 * block. Listeners are one {@code ConfigService} each, as separate applications would be.
 */
final class OfficialConfigClient implements ConfigClient {
  private static final long READ_TIMEOUT_MILLIS = 3_000;

  private final Supplier<Properties> properties;
  private final List<ConfigService> pool = new ArrayList<>();
  private final ExecutorService callers;
  private final Failures failures;
  private final AtomicLong next = new AtomicLong();

  OfficialConfigClient(
      Supplier<Properties> properties, int instances, ExecutorService callers, Failures failures)
      throws NacosException {
    this.properties = properties;
    this.callers = callers;
    this.failures = failures;
    for (int i = 0; i < instances; i++) {
      pool.add(NacosFactory.createConfigService(properties.get()));
    }
  }

  private ConfigService pick() {
    return pool.get((int) (next.getAndIncrement() % pool.size()));
  }

  @Override
  public CompletableFuture<?> query(String dataId, String group) {
    ConfigService client = pick();
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            String content = client.getConfig(dataId, group, READ_TIMEOUT_MILLIS);
            if (content == null) {
              throw new IllegalStateException("config not found: " + dataId);
            }
            return content;
          } catch (NacosException e) {
            throw new CompletionException(e);
          }
        },
        callers);
  }

  @Override
  public CompletableFuture<?> publish(String dataId, String group, String content) {
    ConfigService client = pick();
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            if (!client.publishConfig(dataId, group, content)) {
              throw new IllegalStateException("publish refused: " + dataId);
            }
            return Boolean.TRUE;
          } catch (NacosException e) {
            throw new CompletionException(e);
          }
        },
        callers);
  }

  @Override
  public AutoCloseable listen(
      List<List<String>> dataIdsPerClient,
      String group,
      Function<String, String> currentMd5,
      ListenEvents events)
      throws NacosException {
    List<ConfigService> listeners = new ArrayList<>();
    try {
      for (List<String> dataIds : dataIdsPerClient) {
        ConfigService client = NacosFactory.createConfigService(properties.get());
        listeners.add(client);
        for (String dataId : dataIds) {
          client.addListener(
              dataId,
              group,
              new Listener() {
                @Override
                public Executor getExecutor() {
                  return null;
                }

                @Override
                public void receiveConfigInfo(String content) {
                  events.received(dataId, content, System.nanoTime());
                }
              });
        }
      }
    } catch (NacosException | RuntimeException e) {
      shutDown(listeners);
      throw e;
    }
    return () -> shutDown(listeners);
  }

  private void shutDown(List<ConfigService> clients) {
    for (ConfigService client : clients) {
      try {
        client.shutDown();
      } catch (NacosException | RuntimeException e) {
        failures.note(e);
      }
    }
  }

  @Override
  public void close() {
    shutDown(pool);
    callers.shutdownNow();
  }
}
