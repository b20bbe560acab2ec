package io.sluice.agent.rules;

/** A config as read: its content and md5, or missing (null content, "" md5). */
record ConfigDocument(ConfigKey key, String content, String md5) {
  static ConfigDocument missing(ConfigKey key) {
    return new ConfigDocument(key, null, "");
  }

  boolean exists() {
    return content != null;
  }
}
