package io.sluice.server.config;

import java.nio.charset.StandardCharsets;

/**
 * The rules a config must follow before it is written, close to what Nacos enforces so that what
 * one accepts the other does too: data ids and groups of letters, digits and {@code _-.:}; a
 * namespace id of letters, digits, {@code _} and {@code -}; non-blank content within the size
 * limit; bounded metadata.
 */
final class ConfigValidator {
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

  ConfigValidator(long maxContentBytes) {
    this.maxContentBytes = maxContentBytes;
  }

  long maxContentBytes() {
    return maxContentBytes;
  }

  /** Checks the three parts of a key; throws {@link ConfigException} on the first fault. */
  void checkKey(String namespace, String group, String dataId) {
    checkName("dataId", dataId, MAX_DATA_ID_LENGTH);
    checkName("group", group, MAX_GROUP_LENGTH);
    checkNamespace(namespace);
  }

  void checkNamespace(String namespace) {
    if (namespace == null || namespace.isEmpty()) {
      return;
    }
    if (namespace.length() > MAX_NAMESPACE_LENGTH) {
      throw ConfigException.invalid(
          "namespace is longer than " + MAX_NAMESPACE_LENGTH + " characters");
    }
    for (int i = 0; i < namespace.length(); i++) {
      char c = namespace.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '_' || c == '-')) {
        throw ConfigException.invalid("namespace has an invalid character '" + c + "'");
      }
    }
  }

  void checkPublish(ConfigPublish p) {
    checkKey(p.key().namespace(), p.key().group(), p.key().dataId());
    if (p.content() == null || p.content().isBlank()) {
      throw ConfigException.invalid("content must not be blank");
    }
    // Cheap bound first: a UTF-8 byte is at least a char; at most three per char of Java string.
    long chars = p.content().length();
    if (chars > maxContentBytes) {
      throw ConfigException.tooLarge(chars, maxContentBytes);
    }
    if (chars * 3 > maxContentBytes) {
      long bytes = p.content().getBytes(StandardCharsets.UTF_8).length;
      if (bytes > maxContentBytes) {
        throw ConfigException.tooLarge(bytes, maxContentBytes);
      }
    }
    if (p.target() == ConfigTarget.TAG) {
      checkName("tag", p.tag(), MAX_TAG_LENGTH);
    }
    if (p.target() == ConfigTarget.BETA) {
      if (p.betaIps().isEmpty() || p.betaIps().size() > MAX_BETA_IPS) {
        throw ConfigException.invalid("betaIps must list 1 to " + MAX_BETA_IPS + " addresses");
      }
      for (String ip : p.betaIps()) {
        if (ip.isBlank() || ip.length() > 64) {
          throw ConfigException.invalid("betaIps has an invalid address '" + ip + "'");
        }
      }
    }
    checkLength("desc", p.meta().desc(), MAX_DESC_LENGTH);
    checkLength("use", p.meta().use(), MAX_SHORT_FIELD_LENGTH);
    checkLength("effect", p.meta().effect(), MAX_SHORT_FIELD_LENGTH);
    checkLength("type", p.meta().type(), MAX_SHORT_FIELD_LENGTH);
    checkLength("schema", p.meta().schema(), MAX_SCHEMA_LENGTH);
    checkLength("appName", p.meta().appName(), MAX_GROUP_LENGTH);
    if (p.meta().configTags() != null && !p.meta().configTags().isEmpty()) {
      String[] tags = p.meta().configTags().split(",");
      if (tags.length > MAX_CONFIG_TAGS) {
        throw ConfigException.invalid("config_tags has more than " + MAX_CONFIG_TAGS + " tags");
      }
      for (String tag : tags) {
        checkLength("config_tags entry", tag, MAX_CONFIG_TAG_LENGTH);
      }
    }
  }

  private static void checkName(String what, String value, int maxLength) {
    if (value == null || value.isBlank()) {
      throw ConfigException.invalid(what + " must not be blank");
    }
    if (value.length() > maxLength) {
      throw ConfigException.invalid(what + " is longer than " + maxLength + " characters");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.' || c == ':')) {
        throw ConfigException.invalid(
            what + " has an invalid character '" + c + "': use letters, digits and _-.:");
      }
    }
  }

  private static void checkLength(String what, String value, int maxLength) {
    if (value != null && value.length() > maxLength) {
      throw ConfigException.invalid(what + " is longer than " + maxLength + " characters");
    }
  }
}
