package io.sluice.server.replication;

import java.io.IOException;

/** A snapshot file failed its checksum or its framing: it must not be loaded. */
final class CorruptSnapshotException extends IOException {
  CorruptSnapshotException(String message) {
    super(message);
  }
}
