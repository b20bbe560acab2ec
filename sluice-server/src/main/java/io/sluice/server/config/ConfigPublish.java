package io.sluice.server.config;

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
}
