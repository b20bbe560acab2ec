package io.sluice.server.config;

/**
 * Which version of a config a publish, removal or history entry is about: the formal version every
 * client sees, the beta version for listed client IPs, or a tagged version.
 *
 * <p>Durable formats store {@link #code()}, never the ordinal: reordering or adding targets must
 * not change what existing data means.
 */
public enum ConfigTarget {
  FORMAL(0, "formal"),
  BETA(1, "beta"),
  TAG(2, "tag");

  private final int code;
  private final String publishType;

  ConfigTarget(int code, String publishType) {
    this.code = code;
    this.publishType = publishType;
  }

  /** The stable number durable formats keep. */
  int code() {
    return code;
  }

  /** Nacos's {@code publishType} in history: {@code formal}, {@code beta} or {@code tag}. */
  public String publishType() {
    return publishType;
  }

  /** The target of a stored code; null for a code this version does not know. */
  static ConfigTarget ofCode(int code) {
    for (ConfigTarget target : values()) {
      if (target.code == code) {
        return target;
      }
    }
    return null;
  }

  /** The target of a {@link #publishType()}, as format 1 history records kept it; null if none. */
  static ConfigTarget ofPublishType(String publishType) {
    for (ConfigTarget target : values()) {
      if (target.publishType.equals(publishType)) {
        return target;
      }
    }
    return null;
  }
}
