package io.sluice.server.replication;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/** A piece of replicated state (config store, namespaces, persistent instances, ...). */
public interface ReplicatedState {
  /** Short, stable name; routes commands and labels snapshot sections, e.g. "config". */
  String name();

  /**
   * Applies one committed command, in log order, on the single apply thread. Must be deterministic
   * (no clock, no randomness: anything time-like is inside the command). Never throws for a bad
   * command: it returns an error outcome. Returns the outcome handed to the submitter's future (may
   * be null).
   */
  Object apply(ByteBuffer command, long logIndex);

  /** Writes the whole state; called with applies paused (or on a consistent view). */
  void writeSnapshot(DataOutputStream out) throws IOException;

  /** Replaces the whole state with a snapshot written by writeSnapshot. */
  void loadSnapshot(DataInputStream in) throws IOException;
}
