package io.sluice.agent.governance;

import io.sluice.agent.logging.AgentLog;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps Spring Cloud LoadBalancer's instance caches in step with the registry. The load balancer
 * caches each service's instance list (35 s by default), so a stopped instance keeps getting picks
 * for up to that long after the registry pushed its removal to the application's nacos-client. The
 * agent remembers every cache manager a {@code CachingServiceInstanceListSupplier} is built with,
 * and when nacos-client applies a new instance list for a service, evicts that service's entry from
 * each of them: the next pick reads the client's fresh list, and the list object the lane router
 * keys its precomputed partitions on changes with it.
 *
 * <p>Invariants: cache managers are held weakly (an application context that closes lets go of its
 * own); nothing here runs per request, only per cache built and per registry change. A registry
 * change that arrives while a pick is reading the old list can see that read write the old list
 * back after the eviction; the load balancer's own time to live still bounds that case.
 *
 * <p>Concurrency: the set of cache managers is guarded by its own monitor; evictions run on the
 * nacos-client thread that applied the change, outside that monitor.
 */
final class LoadBalancerCaches {
  /** The cache name Spring Cloud LoadBalancer 4.x and 5.x store instance lists under. */
  static final String CACHE_NAME = "CachingServiceInstanceListSupplierCache";

  private static final String CACHE_MANAGER = "org.springframework.cache.CacheManager";
  private static final String CACHE = "org.springframework.cache.Cache";

  private final Map<Object, Boolean> managers = Collections.synchronizedMap(new WeakHashMap<>());
  private final AgentLog log;
  private final AtomicBoolean failureReported = new AtomicBoolean();
  private final ClassValue<Evictor> evictors =
      new ClassValue<>() {
        @Override
        protected Evictor computeValue(Class<?> type) {
          return Evictor.forClass(type);
        }
      };

  LoadBalancerCaches(AgentLog log) {
    this.log = log;
  }

  /** Remembers a cache manager a load balancer keeps instance lists in. */
  void remember(Object cacheManager) {
    if (cacheManager != null && evictors.get(cacheManager.getClass()) != null) {
      managers.put(cacheManager, Boolean.TRUE);
    }
  }

  /**
   * Evicts the cached instance list of {@code service} from every remembered cache manager. Accepts
   * Nacos's grouped form ({@code group@@service}): Spring Cloud's service id is the bare name.
   */
  void evict(String service) {
    if (service == null || managers.isEmpty()) {
      return;
    }
    int grouped = service.lastIndexOf("@@");
    String serviceId = grouped < 0 ? service : service.substring(grouped + 2);
    List<Object> current;
    synchronized (managers) {
      current = new ArrayList<>(managers.keySet());
    }
    for (Object manager : current) {
      try {
        evictors.get(manager.getClass()).evict(manager, serviceId);
      } catch (Throwable t) {
        if (failureReported.compareAndSet(false, true)) {
          log.warn(
              "could not evict a load balancer's cached instances ("
                  + t
                  + "); stopped instances leave its picks only when its cache expires");
        }
      }
    }
  }

  int size() {
    return managers.size();
  }

  /** Calls {@code getCache(CACHE_NAME).evict(serviceId)} on one cache manager class. */
  private static final class Evictor {
    private final MethodHandle getCache;
    private final MethodHandle evict;

    private Evictor(MethodHandle getCache, MethodHandle evict) {
      this.getCache = getCache;
      this.evict = evict;
    }

    static Evictor forClass(Class<?> type) {
      Class<?> managerApi = ServiceInstanceTags.interfaceNamed(type, CACHE_MANAGER);
      if (managerApi == null) {
        return null;
      }
      try {
        Class<?> cacheApi = Class.forName(CACHE, false, managerApi.getClassLoader());
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        MethodHandle getCache =
            lookup
                .findVirtual(managerApi, "getCache", MethodType.methodType(cacheApi, String.class))
                .asType(MethodType.methodType(Object.class, Object.class, String.class));
        MethodHandle evict =
            lookup
                .findVirtual(cacheApi, "evict", MethodType.methodType(void.class, Object.class))
                .asType(MethodType.methodType(void.class, Object.class, Object.class));
        return new Evictor(getCache, evict);
      } catch (ReflectiveOperationException | LinkageError e) {
        return null;
      }
    }

    void evict(Object manager, String serviceId) throws Throwable {
      Object cache = (Object) getCache.invokeExact(manager, CACHE_NAME);
      if (cache != null) {
        evict.invokeExact(cache, (Object) serviceId);
      }
    }
  }
}
