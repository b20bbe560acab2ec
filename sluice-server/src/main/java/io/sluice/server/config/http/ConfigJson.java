package io.sluice.server.config.http;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.sluice.server.cluster.http.MemberCalls;
import io.sluice.server.config.ConfigHistoryEntry;
import io.sluice.server.config.ConfigItem;
import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ConfigMeta;
import io.sluice.server.config.ConfigVersion;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The JSON shapes of Nacos 2.3's config models, field for field (names and order as Jackson writes
 * Nacos's classes): {@code ConfigInfo}, {@code ConfigAllInfo}, {@code ConfigInfo4Beta}, {@code
 * ConfigInfoWrapper}, {@code ConfigHistoryInfo}, {@code Page}. Ids are strings, as Nacos writes
 * them with {@code ToStringSerializer}; history times are ISO-8601 in UTC, as Spring's Jackson
 * writes a {@code Timestamp}.
 *
 * <p>Each shape is a view of a key and a version whose getters name the field they fill, in the
 * order {@link JsonPropertyOrder} gives: no field is filled by its position in a long argument
 * list.
 */
final class ConfigJson {
  private static final DateTimeFormatter ISO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSxxx").withZone(ZoneOffset.UTC);

  private ConfigJson() {}

  /** {@code Page<T>}. */
  record Page<T>(int totalCount, int pageNumber, int pagesAvailable, List<T> pageItems) {}

  /** {@code ConfigInfo}: what a search lists. */
  @JsonPropertyOrder({
    "id",
    "dataId",
    "group",
    "content",
    "md5",
    "encryptedDataKey",
    "tenant",
    "appName",
    "type"
  })
  static class ConfigInfo {
    final ConfigKey key;
    final ConfigVersion version;

    ConfigInfo(ConfigKey key, ConfigVersion version) {
      this.key = key;
      this.version = version;
    }

    /** A config as a search lists it: its formal version. */
    static ConfigInfo of(ConfigItem item) {
      return new ConfigInfo(item.key(), item.formal());
    }

    public String getId() {
      return Long.toString(version.id());
    }

    public String getDataId() {
      return key.dataId();
    }

    public String getGroup() {
      return key.group();
    }

    public String getContent() {
      return version.content();
    }

    public String getMd5() {
      return version.md5();
    }

    public String getEncryptedDataKey() {
      return version.meta().encryptedDataKey();
    }

    public String getTenant() {
      return key.namespace();
    }

    public String getAppName() {
      return version.meta().appName();
    }

    public String getType() {
      return version.typeOrDefault();
    }
  }

  /** {@code ConfigAllInfo}: the console's detail view ({@code ?show=all}). */
  @JsonPropertyOrder({
    "id",
    "dataId",
    "group",
    "content",
    "md5",
    "encryptedDataKey",
    "tenant",
    "appName",
    "type",
    "createTime",
    "modifyTime",
    "createUser",
    "createIp",
    "desc",
    "use",
    "effect",
    "schema",
    "configTags"
  })
  static final class ConfigAllInfo extends ConfigInfo {
    ConfigAllInfo(ConfigKey key, ConfigVersion version) {
      super(key, version);
    }

    public long getCreateTime() {
      return version.createdMillis();
    }

    public long getModifyTime() {
      return version.modifiedMillis();
    }

    public String getCreateUser() {
      return version.meta().srcUser();
    }

    public String getCreateIp() {
      return version.meta().srcIp();
    }

    public String getDesc() {
      return version.meta().desc();
    }

    public String getUse() {
      return version.meta().use();
    }

    public String getEffect() {
      return version.meta().effect();
    }

    public String getSchema() {
      return version.meta().schema();
    }

    public String getConfigTags() {
      return version.meta().configTags();
    }
  }

  /** {@code ConfigInfo4Beta}: the beta version and the IPs that see it. */
  @JsonPropertyOrder({
    "id",
    "dataId",
    "group",
    "content",
    "md5",
    "encryptedDataKey",
    "tenant",
    "appName",
    "type",
    "betaIps"
  })
  static final class ConfigInfo4Beta extends ConfigInfo {
    ConfigInfo4Beta(ConfigItem item) {
      super(item.key(), item.beta());
    }

    public String getBetaIps() {
      return String.join(",", new TreeSet<>(version.betaIps()));
    }
  }

  /** {@code ConfigInfoWrapper}: a namespace's config list ({@code history/configs}), no content. */
  @JsonPropertyOrder({
    "id",
    "dataId",
    "group",
    "content",
    "md5",
    "encryptedDataKey",
    "tenant",
    "appName",
    "type",
    "lastModified"
  })
  static final class ConfigInfoWrapper extends ConfigInfo {
    ConfigInfoWrapper(ConfigItem item) {
      super(item.key(), item.formal());
    }

    @Override
    public String getContent() {
      return null;
    }

    public long getLastModified() {
      return version.modifiedMillis();
    }
  }

  /**
   * {@code ConfigHistoryInfo}, plus {@code publishType} ({@code formal}, {@code beta} or {@code
   * tag}) which Nacos added in 2.4. {@code id} is the history entry's id (Nacos's {@code nid}).
   */
  @JsonPropertyOrder({
    "id",
    "lastId",
    "dataId",
    "group",
    "tenant",
    "appName",
    "md5",
    "content",
    "srcIp",
    "srcUser",
    "opType",
    "publishType",
    "createdTime",
    "lastModifiedTime",
    "encryptedDataKey"
  })
  static final class ConfigHistoryInfo {
    private final ConfigHistoryEntry entry;
    private final boolean withContent;

    private ConfigHistoryInfo(ConfigHistoryEntry entry, boolean withContent) {
      this.entry = entry;
      this.withContent = withContent;
    }

    /** A list item: without the content, as Nacos's history list leaves it out. */
    static ConfigHistoryInfo summaryOf(ConfigHistoryEntry entry) {
      return new ConfigHistoryInfo(entry, false);
    }

    static ConfigHistoryInfo detailOf(ConfigHistoryEntry entry) {
      return new ConfigHistoryInfo(entry, true);
    }

    private ConfigMeta meta() {
      return entry.meta();
    }

    public String getId() {
      return Long.toString(entry.id());
    }

    public long getLastId() {
      return -1;
    }

    public String getDataId() {
      return entry.key().dataId();
    }

    public String getGroup() {
      return entry.key().group();
    }

    public String getTenant() {
      return entry.key().namespace();
    }

    public String getAppName() {
      return meta().appName();
    }

    public String getMd5() {
      return entry.md5();
    }

    public String getContent() {
      return withContent ? entry.content() : null;
    }

    public String getSrcIp() {
      return meta().srcIp();
    }

    public String getSrcUser() {
      return meta().srcUser();
    }

    public String getOpType() {
      return String.valueOf(entry.opType());
    }

    public String getPublishType() {
      return entry.target().publishType();
    }

    public String getCreatedTime() {
      return isoTime(entry.createdMillis());
    }

    public String getLastModifiedTime() {
      return isoTime(entry.modifiedMillis());
    }

    public String getEncryptedDataKey() {
      return meta().encryptedDataKey();
    }
  }

  /** {@code GroupkeyListenserStatus} (sic): who listens to a config, IP to md5. */
  record ListenerStatus(int collectStatus, Map<String, String> lisentersGroupkeyStatus) {}

  /** One client listening to a config, and the member it listens through. */
  record Listener(String ip, String md5, String node) {}

  /**
   * {@link ListenerStatus} merged over a cluster's members, with each listener and who is missing.
   */
  record ClusterListenerStatus(
      int collectStatus,
      Map<String, String> lisentersGroupkeyStatus,
      List<Listener> listeners,
      List<MemberCalls.Missing> missing) {}

  /** A page of the config center, each item in the shape {@code shape} gives it. */
  static <T, J> Page<J> page(
      io.sluice.server.config.Page<T> page, java.util.function.Function<T, J> shape) {
    return new Page<>(
        page.totalCount(),
        page.pageNumber(),
        page.pagesAvailable(),
        page.pageItems().stream().map(shape).toList());
  }

  static String isoTime(long millis) {
    return ISO_TIME.format(Instant.ofEpochMilli(millis));
  }
}
