package io.sluice.server.config.http;

import io.sluice.server.config.ConfigHistoryEntry;
import io.sluice.server.config.ConfigItem;
import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ConfigVersion;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/**
 * The JSON shapes of Nacos 2.3's config models, field for field (names and order as Jackson writes
 * Nacos's classes): {@code ConfigInfo}, {@code ConfigAllInfo}, {@code ConfigInfo4Beta}, {@code
 * ConfigInfoWrapper}, {@code ConfigHistoryInfo}, {@code Page}. Ids are strings, as Nacos writes
 * them with {@code ToStringSerializer}; history times are ISO-8601 in UTC, as Spring's Jackson
 * writes a {@code Timestamp}.
 */
final class ConfigJson {
  private static final DateTimeFormatter ISO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSxxx").withZone(ZoneOffset.UTC);

  private ConfigJson() {}

  /** {@code Page<T>}. */
  record Page<T>(int totalCount, int pageNumber, int pagesAvailable, List<T> pageItems) {}

  /** {@code ConfigInfo}: what a search lists. */
  record ConfigInfo(
      String id,
      String dataId,
      String group,
      String content,
      String md5,
      String encryptedDataKey,
      String tenant,
      String appName,
      String type) {
    static ConfigInfo of(ConfigKey key, ConfigVersion v) {
      return new ConfigInfo(
          Long.toString(v.id()),
          key.dataId(),
          key.group(),
          v.content(),
          v.md5(),
          v.encryptedDataKey(),
          key.namespace(),
          v.appName(),
          v.typeOrDefault());
    }
  }

  /** {@code ConfigAllInfo}: the console's detail view ({@code ?show=all}). */
  record ConfigAllInfo(
      String id,
      String dataId,
      String group,
      String content,
      String md5,
      String encryptedDataKey,
      String tenant,
      String appName,
      String type,
      long createTime,
      long modifyTime,
      String createUser,
      String createIp,
      String desc,
      String use,
      String effect,
      String schema,
      String configTags) {
    static ConfigAllInfo of(ConfigKey key, ConfigVersion v) {
      return new ConfigAllInfo(
          Long.toString(v.id()),
          key.dataId(),
          key.group(),
          v.content(),
          v.md5(),
          v.encryptedDataKey(),
          key.namespace(),
          v.appName(),
          v.typeOrDefault(),
          v.createdMillis(),
          v.modifiedMillis(),
          v.srcUser(),
          v.srcIp(),
          v.desc(),
          v.use(),
          v.effect(),
          v.schema(),
          v.configTags());
    }
  }

  /** {@code ConfigInfo4Beta}: the beta version and the IPs that see it. */
  record ConfigInfo4Beta(
      String id,
      String dataId,
      String group,
      String content,
      String md5,
      String encryptedDataKey,
      String tenant,
      String appName,
      String type,
      String betaIps) {
    static ConfigInfo4Beta of(ConfigItem item) {
      ConfigVersion v = item.beta();
      ConfigKey key = item.key();
      return new ConfigInfo4Beta(
          Long.toString(v.id()),
          key.dataId(),
          key.group(),
          v.content(),
          v.md5(),
          v.encryptedDataKey(),
          key.namespace(),
          v.appName(),
          v.typeOrDefault(),
          String.join(",", new java.util.TreeSet<>(v.betaIps())));
    }
  }

  /** {@code ConfigInfoWrapper}: a namespace's config list ({@code history/configs}). */
  record ConfigInfoWrapper(
      String id,
      String dataId,
      String group,
      String content,
      String md5,
      String encryptedDataKey,
      String tenant,
      String appName,
      String type,
      long lastModified) {
    static ConfigInfoWrapper of(ConfigKey key, ConfigVersion v) {
      return new ConfigInfoWrapper(
          Long.toString(v.id()),
          key.dataId(),
          key.group(),
          null,
          v.md5(),
          v.encryptedDataKey(),
          key.namespace(),
          v.appName(),
          v.typeOrDefault(),
          v.modifiedMillis());
    }
  }

  /**
   * {@code ConfigHistoryInfo}, plus {@code publishType} ({@code formal}, {@code beta} or {@code
   * tag}) which Nacos added in 2.4. {@code id} is the history entry's id (Nacos's {@code nid}).
   */
  record ConfigHistoryInfo(
      String id,
      long lastId,
      String dataId,
      String group,
      String tenant,
      String appName,
      String md5,
      String content,
      String srcIp,
      String srcUser,
      String opType,
      String publishType,
      String createdTime,
      String lastModifiedTime,
      String encryptedDataKey) {
    /** A list item: without the content, as Nacos's history list leaves it out. */
    static ConfigHistoryInfo summaryOf(ConfigHistoryEntry e) {
      return of(e, false);
    }

    static ConfigHistoryInfo detailOf(ConfigHistoryEntry e) {
      return of(e, true);
    }

    private static ConfigHistoryInfo of(ConfigHistoryEntry e, boolean withContent) {
      return new ConfigHistoryInfo(
          Long.toString(e.id()),
          -1,
          e.key().dataId(),
          e.key().group(),
          e.key().namespace(),
          e.appName(),
          e.md5(),
          withContent ? e.content() : null,
          e.srcIp(),
          e.srcUser(),
          String.valueOf(e.opType()),
          e.publishType(),
          isoTime(e.createdMillis()),
          isoTime(e.modifiedMillis()),
          e.encryptedDataKey());
    }
  }

  /** {@code GroupkeyListenserStatus} (sic): who listens to a config, IP to md5. */
  record ListenerStatus(int collectStatus, Map<String, String> lisentersGroupkeyStatus) {}

  static String isoTime(long millis) {
    return ISO_TIME.format(Instant.ofEpochMilli(millis));
  }
}
