package io.sluice.bench.load;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.exception.NacosException;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import com.alibaba.nacos.api.naming.pojo.Instance;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The naming operations through the official {@code nacos-client}: {@link NamingService} instances
 * (one gRPC connection each) called from a pool of threads, because its calls block. Providers and
 * subscribers get a {@code NamingService} each, as separate applications would. The client does not
 * expose the size of a push, so pushed bytes read as 0 in this mode.
 */
final class OfficialNamingClient implements NamingClient {
  private final Supplier<Properties> properties;
  private final List<NamingService> pool = new ArrayList<>();
  private final ExecutorService callers;
  private final Failures failures;
  private final AtomicLong next = new AtomicLong();

  OfficialNamingClient(
      Supplier<Properties> properties, int instances, ExecutorService callers, Failures failures)
      throws NacosException {
    this.properties = properties;
    this.callers = callers;
    this.failures = failures;
    for (int i = 0; i < instances; i++) {
      pool.add(NacosFactory.createNamingService(properties.get()));
    }
  }

  private static Instance instance(String ip, int port, Map<String, String> metadata) {
    Instance instance = new Instance();
    instance.setIp(ip);
    instance.setPort(port);
    instance.setEphemeral(true);
    instance.setMetadata(new HashMap<>(metadata));
    return instance;
  }

  private CompletableFuture<?> async(NacosCall call) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return call.run();
          } catch (NacosException e) {
            throw new CompletionException(e);
          }
        },
        callers);
  }

  @FunctionalInterface
  private interface NacosCall {
    Object run() throws NacosException;
  }

  @Override
  public CompletableFuture<?> register(
      long seq, String service, String ip, int port, Map<String, String> metadata) {
    NamingService naming = pool.get((int) (seq % pool.size()));
    return async(
        () -> {
          naming.registerInstance(service, GROUP, instance(ip, port, metadata));
          return Boolean.TRUE;
        });
  }

  @Override
  public CompletableFuture<?> query(String service) {
    NamingService naming = pool.get((int) (next.getAndIncrement() % pool.size()));
    return async(() -> naming.getAllInstances(service, GROUP, false));
  }

  @Override
  public Provider provider() throws NacosException {
    NamingService naming = NacosFactory.createNamingService(properties.get());
    return new Provider() {
      @Override
      public CompletableFuture<?> register(
          String service, String ip, int port, Map<String, String> metadata) {
        return async(
            () -> {
              naming.registerInstance(service, GROUP, instance(ip, port, metadata));
              return Boolean.TRUE;
            });
      }

      @Override
      public CompletableFuture<?> deregister(String service, String ip, int port) {
        return async(
            () -> {
              naming.deregisterInstance(service, GROUP, ip, port);
              return Boolean.TRUE;
            });
      }

      @Override
      public void close() {
        shutDown(naming);
      }
    };
  }

  @Override
  public AutoCloseable subscribe(List<String> services, ServiceEvents events)
      throws NacosException {
    NamingService naming = NacosFactory.createNamingService(properties.get());
    for (String service : services) {
      naming.subscribe(
          service,
          GROUP,
          event -> {
            if (event instanceof NamingEvent changed) {
              List<Instance> instances = changed.getInstances();
              int[] ports = new int[instances.size()];
              for (int i = 0; i < ports.length; i++) {
                ports[i] = instances.get(i).getPort();
              }
              events.pushed(service, ports, 0, System.nanoTime());
            }
          });
    }
    return () -> shutDown(naming);
  }

  private void shutDown(NamingService naming) {
    try {
      naming.shutDown();
    } catch (NacosException | RuntimeException e) {
      failures.note(e);
    }
  }

  @Override
  public void close() {
    pool.forEach(this::shutDown);
    callers.shutdownNow();
  }
}
