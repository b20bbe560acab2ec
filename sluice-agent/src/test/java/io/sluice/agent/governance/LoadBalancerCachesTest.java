package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.agent.logging.AgentLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.cache.Cache;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;

class LoadBalancerCachesTest {
  private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
  private final LoadBalancerCaches caches =
      new LoadBalancerCaches(
          AgentLog.toStream(
              new PrintStream(logged, true, StandardCharsets.UTF_8), AgentLog.Level.INFO));

  @Test
  void aRegistryChangeEvictsThatServiceFromEveryRememberedCacheAndNothingElse() {
    ConcurrentMapCacheManager first = new ConcurrentMapCacheManager();
    ConcurrentMapCacheManager second = new ConcurrentMapCacheManager();
    Cache one = first.getCache(LoadBalancerCaches.CACHE_NAME);
    Cache two = second.getCache(LoadBalancerCaches.CACHE_NAME);
    one.put("order-service", List.of("10.0.0.1:8080"));
    one.put("user-service", List.of("10.0.0.2:8080"));
    two.put("order-service", List.of("10.0.0.1:8080"));
    caches.remember(first);
    caches.remember(second);

    caches.evict("DEFAULT_GROUP@@order-service");

    assertThat(one.get("order-service")).isNull();
    assertThat(two.get("order-service")).isNull();
    assertThat(one.get("user-service")).isNotNull();
  }

  @Test
  void acceptsTheBareServiceName() {
    ConcurrentMapCacheManager manager = new ConcurrentMapCacheManager();
    Cache cache = manager.getCache(LoadBalancerCaches.CACHE_NAME);
    cache.put("order-service", List.of("10.0.0.1:8080"));
    caches.remember(manager);

    caches.evict("order-service");

    assertThat(cache.get("order-service")).isNull();
  }

  @Test
  void remembersOnlyCacheManagers() {
    caches.remember("not a cache manager");
    caches.remember(null);

    assertThat(caches.size()).isZero();
    caches.evict("order-service");
    assertThat(logged.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void aCacheManagerThatFailsIsReportedOnceAndTheOthersAreStillEvicted() {
    ConcurrentMapCacheManager failing =
        new ConcurrentMapCacheManager() {
          @Override
          public Cache getCache(String name) {
            throw new IllegalStateException("closed");
          }
        };
    ConcurrentMapCacheManager working = new ConcurrentMapCacheManager();
    Cache cache = working.getCache(LoadBalancerCaches.CACHE_NAME);
    caches.remember(failing);
    caches.remember(working);

    for (int i = 0; i < 3; i++) {
      cache.put("order-service", List.of("10.0.0.1:8080"));
      caches.evict("order-service");
      assertThat(cache.get("order-service")).isNull();
    }

    String log = logged.toString(StandardCharsets.UTF_8);
    assertThat(log).contains("could not evict").contains("closed");
    assertThat(log.indexOf("could not evict")).isEqualTo(log.lastIndexOf("could not evict"));
  }
}
