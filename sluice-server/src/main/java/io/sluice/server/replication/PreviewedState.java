package io.sluice.server.replication;

import java.nio.ByteBuffer;

/**
 * A replicated state whose readers may see a command before it commits: soft state that clients
 * restore by themselves (ephemeral instances, which their owner republishes), where being seen a
 * Raft round and two fsyncs sooner is worth more than never being seen and then withdrawn.
 *
 * <p>{@link #preview} is called once a batch holding the command is in this node's log, before it
 * commits: on the leader just before the entry is appended, on a follower when the leader's append
 * arrives (before it is flushed). Previews come in log order, on Ratis's threads, concurrently with
 * {@link #apply} on the apply thread, and must not throw. A previewed command may never commit (a
 * new leader truncates it); the state withdraws or replaces what it showed on its own.
 *
 * <p>What a preview reads, it reads once: whatever {@link #preview} returns is handed back to
 * {@link #apply(ByteBuffer, long, long, long, Object)} when that same log entry commits, so the
 * command is not decoded twice and the state can keep the very objects it listed. It travels with
 * Ratis's transaction of the entry (kept only until the entry is applied or truncated); when the
 * entry was not previewed on this node in this run (a snapshot installed past it, a restart, a
 * leader that did not append it itself), apply gets null and reads the command.
 *
 * <p>What a preview changes must stay out of what {@link #writeSnapshot} writes and of every
 * outcome {@link #apply} returns: those remain a function of the committed log alone, so every
 * replica's state, snapshots included, stays identical.
 */
public interface PreviewedState extends ReplicatedState {
  /**
   * A command of batch {@code sequence} of proposer {@code proposerId} (one per node run; its
   * sequences rise in the order it proposes) is in the log, not committed yet. The buffer is valid
   * only during the call.
   *
   * @return the command as read, for apply to use instead of reading it again; or null
   */
  Object preview(ByteBuffer command, long proposerId, long sequence);

  /**
   * {@link #apply(ByteBuffer, long)}, told which batch the command came in, so that it can tell a
   * committed command from a newer one it already previewed.
   *
   * @param previewed what {@link #preview} returned for this command of this log entry, or null
   *     when it was not previewed here (or returned null); a faithful reading of {@code command}
   */
  Object apply(ByteBuffer command, long logIndex, long proposerId, long sequence, Object previewed);
}
