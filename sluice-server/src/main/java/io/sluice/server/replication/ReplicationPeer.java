package io.sluice.server.replication;

import java.util.Objects;

/**
 * One member of the replication group: a stable id (it names the peer in the log and on disk, so it
 * must not change across restarts) and the host and port its Ratis gRPC transport listens on.
 */
public record ReplicationPeer(String id, String host, int port) {
  public ReplicationPeer {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(host, "host");
    if (id.isBlank() || !id.matches("[A-Za-z0-9._-]+")) {
      throw new IllegalArgumentException(
          "peer id must be letters, digits, '.', '_' or '-', was '" + id + "'");
    }
    if (host.isBlank()) {
      throw new IllegalArgumentException("peer host must not be blank");
    }
    // 0 lets the operating system choose (tests); only sensible for a one-peer group.
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("peer port must be between 0 and 65535, was " + port);
    }
  }

  /** "host:port", the form Ratis takes. */
  public String address() {
    return host + ":" + port;
  }
}
