package io.sluice.server.config;

import io.sluice.server.feature.Fault;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Lists configs the way Nacos's console and Open API search them: by namespace, then data id and
 * group matched exactly ({@code accurate}) or with {@code *} wildcards ({@code blur}), optionally
 * by app name and config tags; oldest first. Scans the in-memory store, so a search costs time in
 * the number of configs, not disk reads.
 */
final class ConfigSearch {
  /** Nacos caps history pages at 500; config pages get the same bound. */
  static final int MAX_PAGE_SIZE = 500;

  /** A page whose contents add up to more than this is refused: ask for a smaller page. */
  static final long MAX_PAGE_CONTENT_CHARS = 32L * 1024 * 1024;

  private static final Comparator<ConfigItem> OLDEST_FIRST =
      Comparator.comparingLong((ConfigItem item) -> item.formal().createdMillis())
          .thenComparing(item -> item.key().group())
          .thenComparing(item -> item.key().dataId());

  private ConfigSearch() {}

  static Page<ConfigItem> search(
      Collection<ConfigItem> all, ConfigCriteria criteria, int pageNo, int pageSize) {
    if (pageNo < 1 || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      throw ConfigException.invalid(
          "pageNo must be at least 1 and pageSize between 1 and " + MAX_PAGE_SIZE);
    }
    Predicate<ConfigItem> filter = filterFor(criteria);
    List<ConfigItem> matches = new ArrayList<>();
    for (ConfigItem item : all) {
      if (item.formal() != null && filter.test(item)) {
        matches.add(item);
      }
    }
    matches.sort(OLDEST_FIRST);
    int total = matches.size();
    int pages = (total + pageSize - 1) / pageSize;
    List<ConfigItem> items = new ArrayList<>();
    long contentChars = 0;
    long start = (long) (pageNo - 1) * pageSize;
    for (long i = start; i < Math.min(total, start + pageSize); i++) {
      ConfigItem item = matches.get((int) i);
      contentChars += item.formal().content().length();
      if (contentChars > MAX_PAGE_CONTENT_CHARS) {
        throw new ConfigException(
            Fault.TOO_LARGE,
            "the configs of this page hold more than "
                + MAX_PAGE_CONTENT_CHARS
                + " characters; ask for a smaller pageSize",
            null);
      }
      items.add(item);
    }
    return new Page<>(total, pageNo, pages, items);
  }

  /** How many configs (with a formal version) each namespace holds; {@code ""} is public. */
  static Map<String, Integer> countByNamespace(Collection<ConfigItem> all) {
    Map<String, Integer> counts = new HashMap<>();
    for (ConfigItem item : all) {
      if (item.formal() != null) {
        counts.merge(item.key().namespace(), 1, Integer::sum);
      }
    }
    return counts;
  }

  /** The configs of one namespace, oldest first. */
  static List<ConfigItem> inNamespace(Collection<ConfigItem> all, String namespace) {
    String wanted = ConfigKey.canonicalNamespace(namespace);
    return all.stream()
        .filter(item -> item.formal() != null && item.key().namespace().equals(wanted))
        .sorted(OLDEST_FIRST)
        .toList();
  }

  /** The configs whose formal version has one of the ids (as {@code ?show=all} reports them). */
  static List<ConfigItem> withIds(Collection<ConfigItem> all, Set<Long> ids) {
    List<ConfigItem> found = new ArrayList<>();
    for (ConfigItem item : all) {
      ConfigVersion formal = item.formal();
      if (formal != null && ids.contains(formal.id())) {
        found.add(item);
      }
    }
    return found;
  }

  private static Predicate<ConfigItem> filterFor(ConfigCriteria c) {
    String namespace = ConfigKey.canonicalNamespace(c.namespace());
    Predicate<String> dataId = matcher(c.dataId(), c.blur());
    Predicate<String> group = matcher(c.group(), c.blur());
    String appName = isBlank(c.appName()) ? null : c.appName().trim();
    Set<String> tags = isBlank(c.configTags()) ? null : tagsOf(c.configTags());
    return item -> {
      ConfigKey key = item.key();
      if (!key.namespace().equals(namespace)
          || !dataId.test(key.dataId())
          || !group.test(key.group())) {
        return false;
      }
      ConfigVersion formal = item.formal();
      if (appName != null && !appName.equals(formal.meta().appName())) {
        return false;
      }
      if (tags != null) {
        String own = formal.meta().configTags();
        return own != null && tagsOf(own).stream().anyMatch(tags::contains);
      }
      return true;
    };
  }

  private static Predicate<String> matcher(String pattern, boolean blur) {
    if (isBlank(pattern)) {
      return any -> true;
    }
    String trimmed = pattern.trim();
    if (!blur || trimmed.indexOf('*') < 0) {
      return trimmed::equals;
    }
    String[] parts = trimmed.split("\\*", -1);
    StringBuilder regex = new StringBuilder(Pattern.quote(parts[0]));
    for (int i = 1; i < parts.length; i++) {
      regex.append(".*").append(Pattern.quote(parts[i]));
    }
    Pattern compiled = Pattern.compile(regex.toString(), Pattern.DOTALL);
    return value -> compiled.matcher(value).matches();
  }

  private static Set<String> tagsOf(String tags) {
    return Arrays.stream(tags.split(","))
        .map(String::trim)
        .filter(tag -> !tag.isEmpty())
        .collect(Collectors.toSet());
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }
}
