package io.sluice.server.config;

/**
 * Someone waiting to hear that a config changed: a gRPC connection that listens, or a held HTTP
 * long-poll. Called on the fan-out thread; must not block.
 */
public interface ConfigWatcher {
  /** The IP the client reports about itself; decides whether a beta change concerns it. */
  String reportedIp();

  /** The IP the network shows for the client. */
  String remoteIp();

  void changed(ConfigKey key);
}
