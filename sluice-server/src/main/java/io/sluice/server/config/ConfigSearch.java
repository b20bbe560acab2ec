package io.sluice.server.config;

import io.sluice.server.feature.Fault;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Lists configs the way Nacos's console and Open API search them: by namespace, then data id and
 * group matched exactly ({@code accurate}) or with {@code *} wildcards ({@code blur}), optionally
 * by app name and config tags; oldest first. Reads the namespace's {@link ConfigListing}, which is
 * already in that order: the unfiltered list skips to its page, an exact data id and group is one
 * lookup, and other filters walk the namespace once; nothing is sorted per request.
 */
final class ConfigSearch {
  /** Nacos caps history pages at 500; config pages get the same bound. */
  static final int MAX_PAGE_SIZE = 500;

  /** A page whose contents add up to more than this is refused: ask for a smaller page. */
  static final long MAX_PAGE_CONTENT_CHARS = 32L * 1024 * 1024;

  private ConfigSearch() {}

  /**
   * @param items the current item of a key, or null once it is gone
   */
  static Page<ConfigItem> search(
      ConfigListing listing,
      Function<ConfigKey, ConfigItem> items,
      ConfigCriteria criteria,
      int pageNo,
      int pageSize) {
    if (pageNo < 1 || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      throw ConfigException.invalid(
          "pageNo must be at least 1 and pageSize between 1 and " + MAX_PAGE_SIZE);
    }
    String namespace = ConfigKey.canonicalNamespace(criteria.namespace());
    long start = (long) (pageNo - 1) * pageSize;
    long end = start + pageSize;
    List<ConfigItem> page = new ArrayList<>();
    int total;
    if (exactKey(criteria)) {
      ConfigItem item =
          items.apply(ConfigKey.of(namespace, criteria.group().trim(), criteria.dataId().trim()));
      boolean matches = item != null && item.formal() != null && filterFor(criteria).test(item);
      total = matches ? 1 : 0;
      if (matches && start == 0) {
        page.add(item);
      }
    } else if (unfiltered(criteria)) {
      total = listing.count(namespace);
      long seen = 0;
      for (ConfigListing.Listed listed : listing.inOrder(namespace)) {
        if (seen >= end) {
          break;
        }
        if (seen++ >= start) {
          ConfigItem item = items.apply(listed.key());
          if (item != null && item.formal() != null) {
            page.add(item);
          }
        }
      }
    } else {
      Predicate<ConfigItem> filter = filterFor(criteria);
      int matched = 0;
      for (ConfigListing.Listed listed : listing.inOrder(namespace)) {
        ConfigItem item = items.apply(listed.key());
        if (item != null && item.formal() != null && filter.test(item)) {
          if (matched >= start && matched < end) {
            page.add(item);
          }
          matched++;
        }
      }
      total = matched;
    }
    long contentChars = 0;
    for (ConfigItem item : page) {
      contentChars += item.formal().content().length();
      if (contentChars > MAX_PAGE_CONTENT_CHARS) {
        throw new ConfigException(
            Fault.TOO_LARGE,
            "the configs of this page hold more than "
                + MAX_PAGE_CONTENT_CHARS
                + " characters; ask for a smaller pageSize",
            null);
      }
    }
    int pages = (total + pageSize - 1) / pageSize;
    return new Page<>(total, pageNo, pages, page);
  }

  /** The configs of one namespace, oldest first. */
  static List<ConfigItem> inNamespace(
      ConfigListing listing, Function<ConfigKey, ConfigItem> items, String namespace) {
    List<ConfigItem> out = new ArrayList<>();
    for (ConfigListing.Listed listed : listing.inOrder(ConfigKey.canonicalNamespace(namespace))) {
      ConfigItem item = items.apply(listed.key());
      if (item != null && item.formal() != null) {
        out.add(item);
      }
    }
    return out;
  }

  /** Whether the criteria name one config: an exact data id and group. */
  private static boolean exactKey(ConfigCriteria c) {
    return !c.blur() && !isBlank(c.dataId()) && !isBlank(c.group());
  }

  private static boolean unfiltered(ConfigCriteria c) {
    return isBlank(c.dataId())
        && isBlank(c.group())
        && isBlank(c.appName())
        && isBlank(c.configTags());
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
