package io.sluice.server.naming;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One shared copy of the short strings that repeat across instances — cluster names, metadata keys
 * and common metadata values such as versions and zones — so 100,000 instances do not each keep
 * their own "DEFAULT" and "version". Bounded: once full, new strings are kept as they are.
 */
final class CanonicalStrings {
  static final int MAX_ENTRIES = 65_536;
  static final int MAX_LENGTH = 128;

  private final Map<String, String> pool = new ConcurrentHashMap<>();

  String of(String s) {
    if (s == null || s.length() > MAX_LENGTH) {
      return s;
    }
    String shared = pool.get(s);
    if (shared != null) {
      return shared;
    }
    if (pool.size() >= MAX_ENTRIES) {
      return s;
    }
    shared = pool.putIfAbsent(s, s);
    return shared == null ? s : shared;
  }

  Map<String, String> of(Map<String, String> metadata) {
    if (metadata.isEmpty()) {
      return Map.of();
    }
    @SuppressWarnings("unchecked")
    Map.Entry<String, String>[] entries = new Map.Entry[metadata.size()];
    int i = 0;
    for (Map.Entry<String, String> entry : metadata.entrySet()) {
      entries[i++] = Map.entry(of(entry.getKey()), of(entry.getValue()));
    }
    return Map.ofEntries(entries);
  }
}
