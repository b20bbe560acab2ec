package io.sluice.server.config;

/**
 * What a publisher says about a config besides its content, and who published it: everything Nacos
 * keeps next to a version. One value, written and read by one codec ({@link ConfigCodec}), so the
 * list of these fields is spelled out once, not in every command, snapshot and history record. Any
 * field may be null (not given). Build one with {@link #builder()}.
 *
 * @param type the content type ({@code yaml}, {@code json}, ...; {@link ConfigVersion#DEFAULT_TYPE}
 *     when absent)
 * @param configTags comma-separated tags
 * @param encryptedDataKey the key of content a client encrypted, kept and returned as given
 * @param srcUser who wrote (published or removed) this
 * @param srcIp from where
 */
public record ConfigMeta(
    String type,
    String appName,
    String desc,
    String configTags,
    String encryptedDataKey,
    String srcUser,
    String srcIp,
    String use,
    String effect,
    String schema) {

  public static final ConfigMeta NONE = builder().build();

  public static Builder builder() {
    return new Builder();
  }

  /** This metadata with another writer: a removal keeps what was removed, by whom it was. */
  public ConfigMeta writtenBy(String user, String ip) {
    return toBuilder().srcUser(user).srcIp(ip).build();
  }

  public Builder toBuilder() {
    return new Builder()
        .type(type)
        .appName(appName)
        .desc(desc)
        .configTags(configTags)
        .encryptedDataKey(encryptedDataKey)
        .srcUser(srcUser)
        .srcIp(srcIp)
        .use(use)
        .effect(effect)
        .schema(schema);
  }

  /** Fields by name, so that no caller lists ten strings in a row. */
  public static final class Builder {
    private String type;
    private String appName;
    private String desc;
    private String configTags;
    private String encryptedDataKey;
    private String srcUser;
    private String srcIp;
    private String use;
    private String effect;
    private String schema;

    private Builder() {}

    public Builder type(String type) {
      this.type = type;
      return this;
    }

    public Builder appName(String appName) {
      this.appName = appName;
      return this;
    }

    public Builder desc(String desc) {
      this.desc = desc;
      return this;
    }

    public Builder configTags(String configTags) {
      this.configTags = configTags;
      return this;
    }

    public Builder encryptedDataKey(String encryptedDataKey) {
      this.encryptedDataKey = encryptedDataKey;
      return this;
    }

    public Builder srcUser(String srcUser) {
      this.srcUser = srcUser;
      return this;
    }

    public Builder srcIp(String srcIp) {
      this.srcIp = srcIp;
      return this;
    }

    public Builder use(String use) {
      this.use = use;
      return this;
    }

    public Builder effect(String effect) {
      this.effect = effect;
      return this;
    }

    public Builder schema(String schema) {
      this.schema = schema;
      return this;
    }

    public ConfigMeta build() {
      return new ConfigMeta(
          type, appName, desc, configTags, encryptedDataKey, srcUser, srcIp, use, effect, schema);
    }
  }
}
