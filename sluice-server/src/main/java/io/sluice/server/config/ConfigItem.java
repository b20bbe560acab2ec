package io.sluice.server.config;

import java.util.Map;

/**
 * Everything stored under one {@link ConfigKey}: the formal version that every client sees, an
 * optional beta version for listed client IPs, and optional tagged versions. Immutable; the store
 * swaps whole items so readers never see half an update.
 */
public record ConfigItem(
    ConfigKey key, ConfigVersion formal, ConfigVersion beta, Map<String, ConfigVersion> tags) {

  public ConfigItem {
    tags = Map.copyOf(tags);
  }

  /** The tag of one of this item's tagged versions, or null when it is not one of them. */
  public String tagOf(ConfigVersion version) {
    for (Map.Entry<String, ConfigVersion> tag : tags.entrySet()) {
      if (tag.getValue() == version) {
        return tag.getKey();
      }
    }
    return null;
  }

  boolean isEmpty() {
    return formal == null && beta == null && tags.isEmpty();
  }

  /**
   * The version a client gets, as Nacos decides it: the beta version if the client's IP is listed
   * (the IP it reports, or the one the network shows: either may be what an operator lists), else
   * the version of the requested tag (none if that tag does not exist), else the version of the
   * {@code Vipserver-Tag} header's tag if it exists, else the formal version.
   */
  public ConfigVersion versionFor(
      String reportedIp, String remoteIp, String requestedTag, String headerTag) {
    if (beta != null
        && (beta.betaIps().contains(reportedIp) || beta.betaIps().contains(remoteIp))) {
      return beta;
    }
    if (requestedTag != null && !requestedTag.isEmpty()) {
      return tags.get(requestedTag);
    }
    if (headerTag != null && !headerTag.isEmpty()) {
      ConfigVersion tagged = tags.get(headerTag);
      if (tagged != null) {
        return tagged;
      }
    }
    return formal;
  }
}
