package io.sluice.server.replication;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A piece of replicated state (config store, namespaces, persistent instances, ...) that lives in
 * memory and is made durable by a {@link Replicator}: every change is a command in the replicated
 * log, and the whole state is written into the replicator's snapshots.
 *
 * <p>Threading: {@link #apply}, {@link #writeSnapshot} and {@link #loadSnapshot} are called by the
 * replicator one at a time, on its single apply thread, never concurrently with each other. Readers
 * on other threads must be given a safely published view by the state itself (for example an
 * immutable value swapped into a volatile field, or a concurrent map).
 */
public interface ReplicatedState {
  /**
   * Short, stable name; routes commands and labels snapshot sections, e.g. "config". At most 255
   * bytes of UTF-8. Renaming a state orphans its log entries and snapshot section.
   */
  String name();

  /**
   * Applies one committed command, in log order, on the single apply thread. Must be deterministic
   * (no clock, no randomness: anything time-like is inside the command). Never throws for a bad
   * command: it returns an error outcome. Returns the outcome handed to the submitter's future (may
   * be null).
   *
   * <p>The buffer is a read-only view into the log entry and is valid only during this call: copy
   * what you keep. If apply throws anyway, the replicator fails that command's future with a {@link
   * StateApplyException}, logs the failure loudly and carries on with the next command; the state
   * is expected not to have changed (check first, then mutate).
   *
   * @param logIndex the Raft index of the entry holding the command; several commands of one batch
   *     share an index
   */
  Object apply(ByteBuffer command, long logIndex);

  /**
   * Writes the whole state; called on the apply thread, so applies are paused while it runs. The
   * replicator frames, checksums and fsyncs what is written; the state only writes its own bytes.
   */
  void writeSnapshot(DataOutputStream out) throws IOException;

  /**
   * Replaces the whole state with a snapshot written by {@link #writeSnapshot}. Called at start
   * (before any apply) and when a follower installs a snapshot from the leader. The stream ends
   * where the section ends; a state must read exactly what it wrote, or the snapshot is refused.
   */
  void loadSnapshot(DataInputStream in) throws IOException;
}
