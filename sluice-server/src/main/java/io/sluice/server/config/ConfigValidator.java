package io.sluice.server.config;

import io.sluice.server.config.ConfigCommand.Publish;
import io.sluice.server.config.ConfigCommand.Target;
import java.nio.charset.StandardCharsets;

/**
 * The rules a config must follow before it is written, close to what Nacos enforces so that what
 * one accepts the other does too: data ids and groups of letters, digits and {@code _-.:}; a
 * namespace id of letters, digits, {@code _} and {@code -}; non-blank content within the size
 * limit; bounded metadata.
 */
public final class ConfigValidator {
  static final int MAX_DATA_ID_LENGTH = 256;
  static final int MAX_GROUP_LENGTH = 128;
  static final int MAX_NAMESPACE_LENGTH = 128;
  static final int MAX_TAG_LENGTH = 64;
  static final int MAX_DESC_LENGTH = 128;
  static final int MAX_SHORT_FIELD_LENGTH = 32;
  static final int MAX_SCHEMA_LENGTH = 32768;
  static final int MAX_CONFIG_TAGS = 5;
  static final int MAX_CONFIG_TAG_LENGTH = 64;
  static final int MAX_BETA_IPS = 1000;

  private final long maxContentBytes;

  public ConfigValidator(long maxContentBytes) {
    this.maxContentBytes = maxContentBytes;
  }

  public long maxContentBytes() {
    return maxContentBytes;
  }

  /** Checks the three parts of a key; throws {@link InvalidConfigException} on the first fault. */
  public void checkKey(String namespace, String group, String dataId) {
    checkName("dataId", dataId, MAX_DATA_ID_LENGTH);
    checkName("group", group, MAX_GROUP_LENGTH);
    checkNamespace(namespace);
  }

  public void checkNamespace(String namespace) {
    if (namespace == null || namespace.isEmpty()) {
      return;
    }
    if (namespace.length() > MAX_NAMESPACE_LENGTH) {
      throw new InvalidConfigException(
          "namespace is longer than " + MAX_NAMESPACE_LENGTH + " characters");
    }
    for (int i = 0; i < namespace.length(); i++) {
      char c = namespace.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '_' || c == '-')) {
        throw new InvalidConfigException("namespace has an invalid character '" + c + "'");
      }
    }
  }

  public void checkPublish(Publish p) {
    checkKey(p.key().namespace(), p.key().group(), p.key().dataId());
    if (p.content() == null || p.content().isBlank()) {
      throw new InvalidConfigException("content must not be blank");
    }
    // Cheap bound first: a UTF-8 byte is at least a char; at most three per char of Java string.
    long chars = p.content().length();
    if (chars > maxContentBytes) {
      throw new ConfigTooLargeException(chars, maxContentBytes);
    }
    if (chars * 3 > maxContentBytes) {
      long bytes = p.content().getBytes(StandardCharsets.UTF_8).length;
      if (bytes > maxContentBytes) {
        throw new ConfigTooLargeException(bytes, maxContentBytes);
      }
    }
    if (p.target() == Target.TAG) {
      checkName("tag", p.tag(), MAX_TAG_LENGTH);
    }
    if (p.target() == Target.BETA) {
      if (p.betaIps().isEmpty() || p.betaIps().size() > MAX_BETA_IPS) {
        throw new InvalidConfigException("betaIps must list 1 to " + MAX_BETA_IPS + " addresses");
      }
      for (String ip : p.betaIps()) {
        if (ip.isBlank() || ip.length() > 64) {
          throw new InvalidConfigException("betaIps has an invalid address '" + ip + "'");
        }
      }
    }
    checkLength("desc", p.desc(), MAX_DESC_LENGTH);
    checkLength("use", p.use(), MAX_SHORT_FIELD_LENGTH);
    checkLength("effect", p.effect(), MAX_SHORT_FIELD_LENGTH);
    checkLength("type", p.type(), MAX_SHORT_FIELD_LENGTH);
    checkLength("schema", p.schema(), MAX_SCHEMA_LENGTH);
    checkLength("appName", p.appName(), MAX_GROUP_LENGTH);
    if (p.configTags() != null && !p.configTags().isEmpty()) {
      String[] tags = p.configTags().split(",");
      if (tags.length > MAX_CONFIG_TAGS) {
        throw new InvalidConfigException("config_tags has more than " + MAX_CONFIG_TAGS + " tags");
      }
      for (String tag : tags) {
        checkLength("config_tags entry", tag, MAX_CONFIG_TAG_LENGTH);
      }
    }
  }

  private static void checkName(String what, String value, int maxLength) {
    if (value == null || value.isBlank()) {
      throw new InvalidConfigException(what + " must not be blank");
    }
    if (value.length() > maxLength) {
      throw new InvalidConfigException(what + " is longer than " + maxLength + " characters");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.' || c == ':')) {
        throw new InvalidConfigException(
            what + " has an invalid character '" + c + "': use letters, digits and _-.:");
      }
    }
  }

  private static void checkLength(String what, String value, int maxLength) {
    if (value != null && value.length() > maxLength) {
      throw new InvalidConfigException(what + " is longer than " + maxLength + " characters");
    }
  }
}
