package io.sluice.server.replication;

import java.util.List;
import java.util.Optional;

/**
 * The replication group as this node sees it now: who leads, in which term, and how each peer is
 * doing. Only the leader hears from every peer, so only its view says whether a follower is
 * reachable; a follower knows about itself and the leader.
 *
 * @param selfId this node's peer id
 * @param leaderId the leader this node knows of (itself included), if any
 * @param term the current Raft term here
 * @param appliedIndex the last log index applied here
 * @param peers every member, this one included, in the group's order
 */
public record GroupStatus(
    String selfId, Optional<String> leaderId, long term, long appliedIndex, List<Peer> peers) {

  /** How one member is reached and how it is doing, as far as this node knows. */
  public enum Reachability {
    /**
     * This node, or the leader this node hears from, or a follower the leader heard from lately.
     */
    UP,
    /** A follower the leader has not heard from within two election timeouts. */
    DOWN,
    /** Not known here (a follower knows nothing of the other followers). */
    UNKNOWN
  }

  /**
   * One member: its id, its Raft address, and what this node knows of it.
   *
   * @param silentMillis on the leader, how long since this follower last answered; -1 elsewhere
   */
  public record Peer(
      String id, String address, boolean leader, Reachability reachability, long silentMillis) {}
}
