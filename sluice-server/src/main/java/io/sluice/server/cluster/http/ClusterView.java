package io.sluice.server.cluster.http;

import java.util.List;

/**
 * The cluster as this node sees it, for the cluster endpoints: every member of the cluster list and
 * what this node knows of it. A standalone server is a cluster of one.
 *
 * @param term the current Raft term here (0 when the store is not running)
 * @param members every node, this one included, in the order of the cluster list
 */
public record ClusterView(long term, List<Member> members) {
  /**
   * One node.
   *
   * @param state {@code UP}, {@code DOWN} (the leader has not heard from it within two election
   *     timeouts), or {@code UNKNOWN} (a follower does not hear from the other followers)
   */
  public record Member(
      String ip, int port, int raftPort, boolean self, boolean leader, String state) {
    public String address() {
      return ip + ":" + port;
    }
  }
}
