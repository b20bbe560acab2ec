package io.sluice.server.config;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who watches which config, and the fan-out that tells them of changes.
 *
 * <p>Changes arrive on the apply thread and are handed off at once: they are merged into a set of
 * dirty keys (several changes to one key before the fan-out runs become one notification) and
 * drained by one task on the fan-out executor. The backlog is therefore bounded by the number of
 * configs, however fast writes come.
 */
final class ConfigWatchers implements java.util.function.Consumer<ConfigChange> {
  private static final Logger log = LoggerFactory.getLogger(ConfigWatchers.class);
  private static final Set<String> EVERYONE = Set.of();

  private final Map<ConfigKey, Set<ConfigWatcher>> watchersByKey = new ConcurrentHashMap<>();
  private final Map<ConfigKey, Set<String>> dirty = new ConcurrentHashMap<>();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final Executor fanout;

  ConfigWatchers(Executor fanout) {
    this.fanout = fanout;
  }

  void watch(ConfigKey key, ConfigWatcher watcher) {
    watchersByKey.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(watcher);
  }

  void unwatch(ConfigKey key, ConfigWatcher watcher) {
    watchersByKey.computeIfPresent(
        key,
        (k, watchers) -> {
          watchers.remove(watcher);
          return watchers.isEmpty() ? null : watchers;
        });
  }

  /** How many watchers a config has, for the listener query API and tests. */
  Set<ConfigWatcher> watchersOf(ConfigKey key) {
    Set<ConfigWatcher> watchers = watchersByKey.get(key);
    return watchers == null ? Set.of() : Set.copyOf(watchers);
  }

  @Override
  public void accept(ConfigChange change) {
    dirty.merge(change.key(), change.audience(), ConfigWatchers::union);
    if (drainScheduled.compareAndSet(false, true)) {
      fanout.execute(this::drain);
    }
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    if (a.isEmpty() || b.isEmpty()) {
      return EVERYONE;
    }
    java.util.Set<String> both = new java.util.HashSet<>(a);
    both.addAll(b);
    return Set.copyOf(both);
  }

  private void drain() {
    drainScheduled.set(false);
    for (ConfigKey key : dirty.keySet()) {
      Set<String> audience = dirty.remove(key);
      if (audience == null) {
        continue;
      }
      Set<ConfigWatcher> watchers = watchersByKey.get(key);
      if (watchers == null) {
        continue;
      }
      ConfigChange change = new ConfigChange(key, audience);
      for (ConfigWatcher watcher : watchers) {
        if (change.concerns(watcher.reportedIp(), watcher.remoteIp())) {
          try {
            watcher.changed(key);
          } catch (RuntimeException e) {
            log.warn("config watcher {} failed on {}", watcher, key, e);
          }
        }
      }
    }
  }
}
