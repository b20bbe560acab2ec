package io.sluice.server.config;

import java.util.Set;

/**
 * One published version of a config: the formal one, the beta one, or a tagged one. Immutable; a
 * publish replaces it.
 *
 * @param id the history id of the publish that produced it
 * @param meta what the publisher said about the content, and who published it
 * @param createdMillis when the config was first published
 * @param modifiedMillis when this version was published
 * @param betaIps the client IPs that see this version; empty except for a beta version
 */
public record ConfigVersion(
    long id,
    String content,
    String md5,
    ConfigMeta meta,
    long createdMillis,
    long modifiedMillis,
    Set<String> betaIps) {

  /** What a type-less config is served as. */
  public static final String DEFAULT_TYPE = "text";

  public ConfigVersion {
    betaIps = Set.copyOf(betaIps);
  }

  public String typeOrDefault() {
    String type = meta.type();
    return type == null || type.isEmpty() ? DEFAULT_TYPE : type;
  }
}
