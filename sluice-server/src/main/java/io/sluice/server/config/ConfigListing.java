package io.sluice.server.config;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The configs that have a formal version, per namespace, in the order the console and the search
 * list them (oldest first, then group and data id), with their number: kept by {@link ConfigStore}
 * as configs change, so a page of the list and the namespaces' counts cost the page, not a scan and
 * a sort of every config.
 *
 * <p>Concurrency: changed only on the store's apply thread; read by any thread without a lock (a
 * reader racing with a change sees the listing just before or just after it, one config at a time).
 */
final class ConfigListing {

  /** One listed config: where the order puts it, and its key. */
  record Listed(long createdMillis, ConfigKey key) {}

  static final Comparator<Listed> OLDEST_FIRST =
      Comparator.comparingLong(Listed::createdMillis)
          .thenComparing(listed -> listed.key().group())
          .thenComparing(listed -> listed.key().dataId());

  private static final class Namespace {
    final NavigableSet<Listed> configs = new ConcurrentSkipListSet<>(OLDEST_FIRST);
    volatile int count; // configs.size() is a walk of the set
  }

  private final Map<String, Namespace> namespaces = new ConcurrentHashMap<>();

  /** Builds the listing of {@code items} at once. */
  static ConfigListing of(Iterable<ConfigItem> items) {
    ConfigListing listing = new ConfigListing();
    for (ConfigItem item : items) {
      listing.changed(null, item);
    }
    return listing;
  }

  /** A config changed from {@code before} to {@code after} (either null when absent). */
  void changed(ConfigItem before, ConfigItem after) {
    ConfigVersion was = before == null ? null : before.formal();
    ConfigVersion now = after == null ? null : after.formal();
    if (was != null && (now == null || now.createdMillis() != was.createdMillis())) {
      Namespace ns = namespaces.get(before.key().namespace());
      if (ns != null && ns.configs.remove(new Listed(was.createdMillis(), before.key()))) {
        ns.count--;
      }
    }
    if (now != null && (was == null || now.createdMillis() != was.createdMillis())) {
      Namespace ns = namespaces.computeIfAbsent(after.key().namespace(), n -> new Namespace());
      if (ns.configs.add(new Listed(now.createdMillis(), after.key()))) {
        ns.count++;
      }
    }
  }

  void clear() {
    namespaces.clear();
  }

  /** The listed configs of a (canonical) namespace, oldest first; a live view, not a copy. */
  Iterable<Listed> inOrder(String namespace) {
    Namespace ns = namespaces.get(namespace);
    return ns == null ? List.of() : ns.configs;
  }

  /** How many configs a (canonical) namespace lists. */
  int count(String namespace) {
    Namespace ns = namespaces.get(namespace);
    return ns == null ? 0 : ns.count;
  }

  /**
   * How many configs each namespace lists; {@code ""} is public. Namespaces with none are left out.
   */
  Map<String, Integer> counts() {
    Map<String, Integer> out = new HashMap<>();
    namespaces.forEach(
        (name, ns) -> {
          if (ns.count > 0) {
            out.put(name, ns.count);
          }
        });
    return out;
  }
}
