package io.sluice.server.naming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.naming.health.HealthCheck;
import io.sluice.server.naming.health.HealthProbe;
import io.sluice.server.testing.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HealthCheckerTest {
  private static final ServiceKey DB = ServiceKey.of("public", "DEFAULT_GROUP", "db");

  private final ServiceRegistry registry = new ServiceRegistry(new ManualClock());
  private final Set<Integer> downPorts = ConcurrentHashMap.newKeySet();
  private final List<HealthCheck> checksSeen = new CopyOnWriteArrayList<>();
  private final HealthProbe probe =
      (instance, check) -> {
        checksSeen.add(check);
        return CompletableFuture.completedFuture(!downPorts.contains(instance.port()));
      };

  private void addPersistent(int port, String cluster) {
    registry.putPersistent(
        DB,
        InstanceValidator.instance(
            DB, null, "10.0.0.1", port, null, true, null, false, cluster, null));
  }

  private boolean healthy(int port, String cluster) {
    return registry.persistent(DB, "10.0.0.1:" + port + "#" + cluster).healthy();
  }

  @Test
  void marksAnInstanceUnhealthyAfterThreeFailedChecksInARowAndHealthyAfterThreePassed() {
    HealthChecker checker = new HealthChecker(registry, probe, 4, 3);
    addPersistent(3306, "DEFAULT");
    List<ServiceKey> changes = new CopyOnWriteArrayList<>();
    registry.onChange(changes::add);
    downPorts.add(3306);

    checker.runRound().join();
    checker.runRound().join();
    assertThat(healthy(3306, "DEFAULT")).isTrue();
    checker.runRound().join();
    assertThat(healthy(3306, "DEFAULT")).isFalse();
    assertThat(changes).containsExactly(DB);

    downPorts.clear();
    checker.runRound().join();
    checker.runRound().join();
    assertThat(healthy(3306, "DEFAULT")).isFalse();
    checker.runRound().join();
    assertThat(healthy(3306, "DEFAULT")).isTrue();
  }

  @Test
  void aSinglePassBetweenFailuresStartsTheCountAgain() {
    HealthChecker checker = new HealthChecker(registry, probe, 4, 3);
    addPersistent(3306, "DEFAULT");
    for (int round = 0; round < 6; round++) {
      if (round % 3 == 2) {
        downPorts.clear();
      } else {
        downPorts.add(3306);
      }
      checker.runRound().join();
    }
    assertThat(healthy(3306, "DEFAULT")).isTrue();
  }

  @Test
  void checksEachClusterAsItsServiceMetadataSaysAndSkipsNone() {
    registry.putMeta(
        DB,
        new ServiceMeta(
            0,
            Map.of(
                HealthCheck.SERVICE_KEY,
                "{\"type\":\"HTTP\",\"path\":\"/health\"}",
                HealthCheck.clusterKey("east"),
                "NONE"),
            null));
    addPersistent(1, "DEFAULT");
    addPersistent(2, "east");
    HealthChecker checker = new HealthChecker(registry, probe, 4, 1);
    downPorts.add(2);

    checker.runRound().join();

    assertThat(checksSeen).containsExactly(new HealthCheck(HealthCheck.Type.HTTP, "/health", 200));
    assertThat(healthy(2, "east")).isTrue();
  }

  @Test
  void keepsAtMostTheGivenNumberOfProbesOutstanding() {
    List<CompletableFuture<Boolean>> outstanding = new ArrayList<>();
    AtomicInteger started = new AtomicInteger();
    HealthProbe slow =
        (instance, check) -> {
          started.incrementAndGet();
          CompletableFuture<Boolean> answer = new CompletableFuture<>();
          synchronized (outstanding) {
            outstanding.add(answer);
          }
          return answer;
        };
    for (int port = 1; port <= 10; port++) {
      addPersistent(port, "DEFAULT");
    }
    HealthChecker checker = new HealthChecker(registry, slow, 3, 1);

    CompletableFuture<Void> round = checker.runRound();
    assertThat(started).hasValue(3);
    assertThat(checker.runRound()).isDone(); // a second round while one runs is skipped
    assertThat(started).hasValue(3);

    for (int answered = 0; answered < 10; answered++) {
      CompletableFuture<Boolean> next;
      synchronized (outstanding) {
        next = outstanding.get(answered);
      }
      next.complete(false);
      assertThat(started.get() - (answered + 1)).isLessThanOrEqualTo(3);
    }
    assertThat(round).isDone();
    assertThat(started).hasValue(10);
    for (int port = 1; port <= 10; port++) {
      assertThat(healthy(port, "DEFAULT")).isFalse();
    }
  }

  @Test
  void forgetsInstancesThatWereRemoved() {
    HealthChecker checker = new HealthChecker(registry, probe, 4, 3);
    addPersistent(1, "DEFAULT");
    addPersistent(2, "DEFAULT");
    checker.runRound().join();
    assertThat(checker.remembered()).hasSize(2);

    registry.removePersistent(DB, "10.0.0.1:1#DEFAULT");
    checker.runRound().join();

    assertThat(checker.remembered()).containsExactly("10.0.0.1:2#DEFAULT");
  }

  @Test
  void readsNacosHealthCheckerJsonAndBareTypes() {
    assertThat(HealthCheck.parse("{\"type\":\"TCP\"}")).isEqualTo(HealthCheck.TCP);
    assertThat(HealthCheck.parse("http"))
        .isEqualTo(new HealthCheck(HealthCheck.Type.HTTP, "/", 200));
    assertThat(
            HealthCheck.parse(
                "{\"type\":\"HTTP\",\"path\":\"/ok\",\"headers\":\"\",\"expectedResponseCode\":204}"))
        .isEqualTo(new HealthCheck(HealthCheck.Type.HTTP, "/ok", 204));
    assertThat(HealthCheck.forCluster(Map.of(), "DEFAULT")).isEqualTo(HealthCheck.TCP);
    assertThatThrownBy(() -> HealthCheck.parse("{\"type\":\"MYSQL\"}"))
        .isInstanceOf(NamingException.class);
    assertThatThrownBy(() -> HealthCheck.parse("{\"type\":")).isInstanceOf(NamingException.class);
    assertThatThrownBy(() -> HealthCheck.parse("{\"type\":\"HTTP\",\"path\":\"health\"}"))
        .isInstanceOf(NamingException.class);
  }
}
