package io.sluice.server.cluster;

import static io.sluice.server.testing.ClusterProcesses.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.testing.BesideInProcessTests;
import io.sluice.server.testing.ClusterProcesses;
import io.sluice.server.testing.ClusterWriters;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Membership changes an operator makes on a running three-node cluster of real processes on
 * loopback, while two writers publish through every member: removing a follower, restarting the
 * removed node on its old data with its old cluster list, and replacing a node both at the same
 * address and at a new one (docs/operations.md). In order, on one cluster; the writers run from the
 * first scenario to the last, which checks that no acknowledged write was lost.
 */
@BesideInProcessTests
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MembershipIT {
  /** Generous: three JVMs and the test share two cores. */
  private static final int PATIENCE_SECONDS = 60;

  private static final Duration CHANGE_TIMEOUT = Duration.ofSeconds(150);
  private static final ObjectMapper JSON = new ObjectMapper();

  private ClusterProcesses cluster;

  /** The nodes that are members now; writers go through them in turn. */
  private final Set<Integer> members = new ConcurrentSkipListSet<>(List.of(0, 1, 2));

  private ClusterWriters writers;

  /** The follower removed first (and later replaced at its own address). */
  private int removed = -1;

  @BeforeAll
  void startClusterAndWriters() throws Exception {
    Path work = Files.createTempDirectory(Path.of("target"), "membership-it-");
    // Three founders, and node 3, which replaces one of them at a new address.
    cluster = ClusterProcesses.start(work, 3, 1);
    writers = ClusterWriters.roundMembers(cluster, "members", 2, members);
    writers.awaitAcked(10, PATIENCE_SECONDS);
  }

  @AfterAll
  void stopClusterAndWriters() throws Exception {
    if (writers != null) {
      writers.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void aRemovedFollowerLeavesEveryMembersListAndTheOthersKeepWriting() throws Exception {
    int leader = cluster.awaitLeader(PATIENCE_SECONDS);
    removed = (leader + 1) % 3;
    int asked =
        (leader + 2) % 3; // neither the leader nor the node removed: the change is forwarded
    HttpResponse<String> answer = removeMember(asked, removed);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    members.remove(removed);
    cluster.stop(removed);

    writers.awaitMore(10, PATIENCE_SECONDS);
    for (int node : members) {
      awaitCondition(() -> memberAddresses(node).size() == 2, 30);
      assertThat(memberAddresses(node))
          .as("members according to node %d", node)
          .doesNotContain(cluster.address(removed));
    }
    assertThat(cluster.awaitLeader(PATIENCE_SECONDS)).as("the leader stays").isEqualTo(leader);
  }

  @Test
  @Order(2)
  void theRemovedNodeRestartedWithItsOldListRefusesToStartAndDoesNotDisturbTheGroup()
      throws Exception {
    int leader = cluster.awaitLeader(PATIENCE_SECONDS);
    long term = term(leader);

    cluster.launchOnly(removed); // its old data directory, its old cluster list (all three)
    int exit = cluster.process(removed).awaitExitSaying("is not a member of the cluster", 120);

    assertThat(exit).as("the removed node's exit code").isNotZero();
    assertThat(String.join("\n", cluster.process(removed).output()))
        .contains("start it on an empty data directory and add it again");
    // Undisturbed: no election happened (same leader, same term) and writes went on throughout.
    writers.awaitMore(10, PATIENCE_SECONDS);
    assertThat(cluster.awaitLeader(PATIENCE_SECONDS)).isEqualTo(leader);
    assertThat(term(leader)).as("the Raft term").isEqualTo(term);
    for (int node : members) {
      assertThat(memberAddresses(node)).hasSize(2).doesNotContain(cluster.address(removed));
    }
  }

  @Test
  @Order(3)
  void theRemovedNodeReplacedAtItsOwnAddressOnAnEmptyDirectoryJoinsAndCatchesUp() throws Exception {
    cluster.wipeDataDirectory(removed);
    List<Integer> list = new ArrayList<>(members);
    list.add(removed);
    cluster.setClusterList(removed, list);
    cluster.launchOnly(removed);
    int asked = members.iterator().next();
    HttpResponse<String> answer = addMember(asked, removed);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    cluster.awaitReady(removed, 120);
    members.add(removed);

    writers.awaitMore(10, PATIENCE_SECONDS);
    for (int node : members) {
      awaitCondition(() -> memberAddresses(node).size() == 3, 30);
      assertThat(memberAddresses(node)).contains(cluster.address(removed));
    }
    writers.assertHeldOn(cluster, members);
  }

  @Test
  @Order(4)
  void aFollowerReplacedByANewNodeAtANewAddressLeavesNoWriteBehind() throws Exception {
    int leader = cluster.awaitLeader(PATIENCE_SECONDS);
    int replaced = -1;
    for (int node : members) {
      if (node != leader && node != removed) {
        replaced = node;
      }
    }
    assertThat(replaced).as("a founder follower to replace").isNotNegative();
    int fresh = 3;
    List<Integer> list = new ArrayList<>(members);
    list.add(fresh);
    cluster.setClusterList(fresh, list);
    cluster.launchOnly(fresh);
    HttpResponse<String> added = addMember(leader, fresh);
    assertThat(added.statusCode()).as(added.body()).isEqualTo(200);
    cluster.awaitReady(fresh, 120);
    members.add(fresh);

    HttpResponse<String> gone = removeMember(fresh, replaced);
    assertThat(gone.statusCode()).as(gone.body()).isEqualTo(200);
    members.remove(replaced);
    cluster.stop(replaced);

    writers.awaitMore(10, PATIENCE_SECONDS);
    writers.close();
    System.out.printf(
        "membership: follower %d removed, refused on restart, replaced at its address; follower %d"
            + " replaced by node %d; %d writes failed meanwhile, acked %s%n",
        removed, replaced, fresh, writers.failures(), writers.lastAcked());
    for (int node : members) {
      int member = node;
      awaitCondition(() -> memberAddresses(member).size() == 3, 30);
      assertThat(memberAddresses(node))
          .as("members according to node %d", node)
          .contains(cluster.address(fresh), cluster.address(removed))
          .doesNotContain(cluster.address(replaced));
    }
    writers.assertHeldOn(cluster, members);
  }

  private HttpResponse<String> addMember(int asked, int node) throws Exception {
    return cluster.send(
        asked,
        "POST",
        "/v1/core/cluster/members",
        "address=" + cluster.address(node),
        CHANGE_TIMEOUT);
  }

  private HttpResponse<String> removeMember(int asked, int node) throws Exception {
    return cluster.send(
        asked,
        "DELETE",
        "/v1/core/cluster/members?address=" + cluster.address(node),
        "",
        CHANGE_TIMEOUT);
  }

  private long term(int node) throws Exception {
    JsonNode first = JSON.readTree(cluster.get(node, "/v1/core/cluster/nodes").body()).get("data");
    return first
        .get(0)
        .path("extendInfo")
        .path("raftMetaData")
        .path("metaDataMap")
        .path("sluice")
        .path("term")
        .asLong(-1);
  }

  private List<String> memberAddresses(int node) {
    List<String> addresses = new ArrayList<>();
    try {
      for (JsonNode member :
          JSON.readTree(cluster.get(node, "/v1/core/cluster/nodes").body()).get("data")) {
        addresses.add(member.get("address").asText());
      }
    } catch (Exception e) {
      throw new AssertionError("node " + node + " did not list its members", e);
    }
    return addresses;
  }
}
