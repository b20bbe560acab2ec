package io.sluice.server.config;

import java.util.Set;

/**
 * A config changed. Listeners re-read the store for the content.
 *
 * @param audience the client IPs whose view changed, or empty when it is every client (a beta
 *     publish or removal only changes what its beta IPs see)
 */
record ConfigChange(ConfigKey key, Set<String> audience) {
  boolean concerns(String reportedIp, String remoteIp) {
    return audience.isEmpty() || audience.contains(reportedIp) || audience.contains(remoteIp);
  }
}
