package io.sluice.server.config;

import java.util.Set;

/**
 * One published version of a config: the formal one, the beta one, or a tagged one. Immutable; a
 * publish replaces it.
 *
 * @param id the history id of the publish that produced it
 * @param betaIps the client IPs that see this version; empty except for a beta version
 */
public record ConfigVersion(
    long id,
    String content,
    String md5,
    String type,
    String appName,
    String desc,
    String configTags,
    String encryptedDataKey,
    String srcUser,
    String srcIp,
    String use,
    String effect,
    String schema,
    long createdMillis,
    long modifiedMillis,
    Set<String> betaIps) {

  /** What a type-less config is served as. */
  public static final String DEFAULT_TYPE = "text";

  public String typeOrDefault() {
    return type == null || type.isEmpty() ? DEFAULT_TYPE : type;
  }
}
