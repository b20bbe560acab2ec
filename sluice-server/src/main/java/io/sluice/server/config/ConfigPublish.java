package io.sluice.server.config;

import java.util.HashSet;
import java.util.Set;

/**
 * A request to publish a version of a config, as a protocol received it. The door validates it,
 * computes the md5 and takes the time; nothing in it is trusted before that.
 *
 * @param tag the tag of a {@link ConfigTarget#TAG} publish, else null
 * @param meta what the client said about the content, with the user and IP it came from
 * @param betaIps the client IPs of a {@link ConfigTarget#BETA} publish, else empty
 * @param casMd5 non-empty for compare-and-set: published only if the targeted version's md5 is this
 *     (or the version does not exist, as in Nacos)
 */
public record ConfigPublish(
    ConfigKey key,
    ConfigTarget target,
    String tag,
    String content,
    ConfigMeta meta,
    Set<String> betaIps,
    String casMd5) {

  public ConfigPublish {
    betaIps = Set.copyOf(betaIps);
  }

  /**
   * A publish as Nacos reads its parameters: a beta publish when {@code betaIps} (comma-separated)
   * lists any address, else a tagged one when {@code tag} is given, else the formal version.
   */
  public static ConfigPublish of(
      ConfigKey key, String tag, String betaIps, String content, ConfigMeta meta, String casMd5) {
    if (betaIps != null && !betaIps.isBlank()) {
      return new ConfigPublish(key, ConfigTarget.BETA, null, content, meta, ips(betaIps), casMd5);
    }
    if (tag != null && !tag.isBlank()) {
      return new ConfigPublish(key, ConfigTarget.TAG, tag.trim(), content, meta, Set.of(), casMd5);
    }
    return new ConfigPublish(key, ConfigTarget.FORMAL, null, content, meta, Set.of(), casMd5);
  }

  private static Set<String> ips(String commaSeparated) {
    Set<String> ips = new HashSet<>();
    for (String ip : commaSeparated.split(",")) {
      if (!ip.isBlank()) {
        ips.add(ip.trim());
      }
    }
    return ips;
  }
}
