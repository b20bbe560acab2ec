package io.sluice.server.cluster;

import static io.sluice.server.testing.ClusterProcesses.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.naming.NamingService;
import io.sluice.server.testing.BesideInProcessTests;
import io.sluice.server.testing.ClusterProcesses;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A member whose JVM pauses longer than Ratis's close threshold (10 s), as a long full collection
 * on a loaded machine did to a node holding 200,000 instances: on resuming, Ratis's pause monitor
 * shuts the member down. The node must bring its store back by itself, in-process: not ready, with
 * the reason, meanwhile; then it catches up with what the others wrote while it was frozen, serves
 * reads and writes again, and its clients' ephemeral instances, which the others dropped after the
 * owner timeout, are listed on every node again.
 *
 * <p>The pause is real: the node's process is stopped with SIGSTOP for longer than the threshold,
 * so Ratis's own monitor notices it on SIGCONT and closes its server on its own thread, exactly as
 * after a collection that long.
 */
@BesideInProcessTests
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PausedMemberIT {
  private static final int LEADER_PATIENCE_SECONDS = 60;
  private static final String READINESS = "/v1/console/health/readiness";

  /** Longer than Ratis's close threshold (10 s), with a margin. */
  private static final int PAUSE_SECONDS = 13;

  private ClusterProcesses cluster;
  private NamingService ownerClient;

  @BeforeAll
  void startCluster() throws Exception {
    System.setProperty("JM.LOG.PATH", Path.of("target", "nacos-client-logs").toString());
    Path work = Files.createTempDirectory(Path.of("target"), "paused-member-it-");
    cluster = ClusterProcesses.start(work, 3);
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (ownerClient != null) {
      ownerClient.shutDown();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aMemberRatisShutDownAfterALongPauseRestartsItselfCatchesUpAndServes() throws Exception {
    int leader = cluster.awaitLeader(LEADER_PATIENCE_SECONDS);
    int paused = (leader + 1) % 3;
    int other = (leader + 2) % 3;
    // An instance owned by a client of the node that will pause (the official client, given that
    // node alone), listed by the others through the replicated log.
    Properties properties = new Properties();
    properties.put(PropertyKeyConst.SERVER_ADDR, cluster.address(paused));
    ownerClient = NacosFactory.createNamingService(properties);
    ownerClient.registerInstance("paused-owner-svc", "127.0.0.30", 8080);
    for (int node = 0; node < 3; node++) {
      awaitListed(node, "paused-owner-svc", "127.0.0.30", true, 60);
    }
    assertThat(publish(paused, "before-pause", "1").statusCode()).isEqualTo(200);

    List<String> notReady = new CopyOnWriteArrayList<>();
    AtomicBoolean watching = new AtomicBoolean(true);
    Thread readinessWatcher = watchReadiness(paused, notReady, watching);
    cluster.process(paused).pause();
    long pausedAt = System.nanoTime();
    int writesDuring = 40;
    try {
      // The others go on: configs written while it is frozen, which it must catch up with.
      for (int i = 0; i < writesDuring; i++) {
        int node = i % 2 == 0 ? leader : other;
        HttpResponse<String> written = publish(node, "during-pause-" + i, "v" + i);
        assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
      }
      long left = TimeUnit.SECONDS.toNanos(PAUSE_SECONDS) - (System.nanoTime() - pausedAt);
      if (left > 0) {
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(left));
      }
    } finally {
      cluster.process(paused).resume();
    }
    long resumedAt = System.nanoTime();
    boolean droppedMeanwhile =
        !cluster
            .get(leader, "/v1/ns/instance/list?serviceName=paused-owner-svc")
            .body()
            .contains("127.0.0.30");

    // Ratis's pause monitor shuts the member down; the store notices and restarts itself.
    cluster.process(paused).awaitOutputContaining("longer than the close-threshold", 60);
    cluster.process(paused).awaitOutputContaining("the store restarted in-process", 120);
    awaitCondition(() -> cluster.get(paused, READINESS).statusCode() == 200, 120);
    long readyAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resumedAt);
    watching.set(false);
    readinessWatcher.join(30_000);
    assertThat(notReady)
        .as("readiness while the store was down")
        .anyMatch(answer -> answer.startsWith("500 ") && answer.contains("cannot commit writes"));
    // Not asserted: that the first attempt worked. A retry is part of the design, and on a loaded
    // machine Ratis's own close can outlast an attempt; the collision of two snapshot writers that
    // used to fail every attempt is covered exactly by SnapshotFileTest and RatisReplicatorTest.

    // It caught up: its (linearizable) config reads return what the others wrote meanwhile.
    for (int i = 0; i < writesDuring; i++) {
      String path = "/v1/cs/configs?dataId=during-pause-" + i + "&group=CLUSTER";
      assertThat(cluster.get(paused, path).body()).isEqualTo("v" + i);
    }
    // It serves writes again, which every node reads.
    assertThat(publish(paused, "after-pause", "2").statusCode()).isEqualTo(200);
    for (int node = 0; node < 3; node++) {
      assertThat(cluster.get(node, "/v1/cs/configs?dataId=after-pause&group=CLUSTER").body())
          .isEqualTo("2");
      assertThat(cluster.get(node, "/v1/cs/configs?dataId=before-pause&group=CLUSTER").body())
          .isEqualTo("1");
    }
    // Its client's instance is listed on every node again (republished by the node, or
    // registered again by the client after it reconnected).
    for (int node = 0; node < 3; node++) {
      awaitListed(node, "paused-owner-svc", "127.0.0.30", true, 60);
    }
    System.out.printf(
        "paused %d s: ready again %d ms after resuming, not ready %d times meanwhile (%s); its"
            + " instance dropped by the leader meanwhile: %s%n",
        PAUSE_SECONDS,
        readyAfterMillis,
        notReady.size(),
        notReady.isEmpty() ? "-" : notReady.get(0),
        droppedMeanwhile);
  }

  /**
   * Records each answer of {@code node}'s readiness other than 200, until {@code watching} ends.
   */
  private Thread watchReadiness(int node, List<String> notReady, AtomicBoolean watching) {
    Thread watcher =
        new Thread(
            () -> {
              while (watching.get()) {
                try {
                  HttpResponse<String> answer = cluster.get(node, READINESS);
                  if (answer.statusCode() != 200) {
                    notReady.add(answer.statusCode() + " " + answer.body());
                  }
                  Thread.sleep(20);
                } catch (IOException e) {
                  // Frozen: the request timed out. Ask again.
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "readiness-watcher");
    watcher.setDaemon(true);
    watcher.start();
    return watcher;
  }

  private void awaitListed(int node, String service, String ip, boolean listed, int seconds)
      throws Exception {
    awaitCondition(
        () ->
            cluster.get(node, "/v1/ns/instance/list?serviceName=" + service).body().contains(ip)
                == listed,
        seconds);
  }

  private HttpResponse<String> publish(int node, String dataId, String content) throws Exception {
    return cluster.postForm(
        node, "/v1/cs/configs", "dataId=" + dataId + "&group=CLUSTER&content=" + content);
  }
}
