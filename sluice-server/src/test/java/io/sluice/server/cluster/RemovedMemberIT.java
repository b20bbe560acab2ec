package io.sluice.server.cluster;

import static io.sluice.server.testing.ClusterProcesses.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.testing.BesideInProcessTests;
import io.sluice.server.testing.ClusterProcesses;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A follower removed from a three-node cluster on purpose ({@code DELETE
 * /nacos/v1/core/cluster/members}) and left running: its store stops, as Ratis stops a removed
 * member, and the server must not mistake that for a failure to heal. It is not restarted
 * in-process, its readiness says it was removed, and the two remaining nodes go on serving.
 */
@BesideInProcessTests
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RemovedMemberIT {
  private static final int LEADER_PATIENCE_SECONDS = 60;
  private static final String READINESS = "/v1/console/health/readiness";

  private ClusterProcesses cluster;

  @BeforeAll
  void startCluster() throws Exception {
    Path work = Files.createTempDirectory(Path.of("target"), "removed-member-it-");
    cluster = ClusterProcesses.start(work, 3);
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aFollowerRemovedOnPurposeIsNotRestartedAndSaysItWasRemoved() throws Exception {
    int leader = cluster.awaitLeader(LEADER_PATIENCE_SECONDS);
    int removed = (leader + 1) % 3;
    int kept = (leader + 2) % 3;
    assertThat(publish(removed, "before", "1").statusCode()).isEqualTo(200);

    HttpResponse<String> change =
        cluster.send(
            leader,
            "DELETE",
            "/v1/core/cluster/members?address=" + cluster.address(removed),
            "",
            Duration.ofSeconds(150));
    assertThat(change.statusCode()).as(change.body()).isEqualTo(200);
    assertThat(change.body()).doesNotContain(cluster.address(removed));

    // Its store stops within an election timeout or two; readiness then says why.
    awaitCondition(
        () -> {
          HttpResponse<String> ready = cluster.get(removed, READINESS);
          return ready.statusCode() == 500 && ready.body().contains("removed from the cluster");
        },
        60);
    // Several supervision rounds (every 1 s; a failed restart is retried after 1 s, then 2, 4...)
    // later, it still is, and it never restarted its store.
    Thread.sleep(TimeUnit.SECONDS.toMillis(12));
    HttpResponse<String> stillRemoved = cluster.get(removed, READINESS);
    assertThat(stillRemoved.statusCode()).isEqualTo(500);
    assertThat(stillRemoved.body()).contains("removed from the cluster").contains("not restarted");
    List<String> output = List.copyOf(cluster.process(removed).output());
    assertThat(output)
        .as("the removed node's output")
        .noneMatch(line -> line.contains("restarted in-process"))
        .noneMatch(line -> line.contains("restarting the store failed"))
        .anyMatch(line -> line.contains("removed from the cluster's replication group"));
    assertThat(cluster.process(removed).isAlive()).isTrue();
    HttpResponse<String> refused = publish(removed, "after", "2");
    assertThat(refused.statusCode()).as(refused.body()).isNotEqualTo(200);
    assertThat(refused.body()).contains("removed from the cluster");

    // The two remaining nodes serve reads and writes, and agree on the new membership.
    for (int node : new int[] {leader, kept}) {
      assertThat(cluster.get(node, READINESS).statusCode()).isEqualTo(200);
      assertThat(cluster.get(node, "/v1/core/cluster/nodes").body())
          .doesNotContain(cluster.address(removed));
    }
    assertThat(publish(kept, "after", "3").statusCode()).isEqualTo(200);
    assertThat(cluster.get(leader, "/v1/cs/configs?dataId=after&group=CLUSTER").body())
        .isEqualTo("3");
    assertThat(cluster.get(kept, "/v1/cs/configs?dataId=before&group=CLUSTER").body())
        .isEqualTo("1");
  }

  private HttpResponse<String> publish(int node, String dataId, String content) throws Exception {
    return cluster.postForm(
        node, "/v1/cs/configs", "dataId=" + dataId + "&group=CLUSTER&content=" + content);
  }
}
