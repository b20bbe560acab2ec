package io.sluice.server.config.durability;

import static org.assertj.core.api.Assertions.assertThat;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import io.sluice.server.testing.BesideInProcessTests;
import io.sluice.server.testing.ServerProcess;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Publishes with the official client while the server process is killed with SIGKILL at a random
 * moment, restarts it over the same data directory, and checks that every publish the client saw
 * acknowledged is there: none lost, none older than acknowledged.
 */
@BesideInProcessTests
class ConfigDurabilityIT {
  private static final int ROUNDS = 3;
  private static final int WRITERS = 8;

  @TempDir Path dataDir;

  @Test
  void keepsEveryAcknowledgedPublishAcrossKillNine() throws Exception {
    System.setProperty("JM.LOG.PATH", Path.of("target", "nacos-client-logs").toString());
    // dataId -> highest version acknowledged; a key is rewritten with growing versions.
    Map<String, Integer> acknowledged = new ConcurrentHashMap<>();
    Random random = new Random(42);
    for (int round = 0; round < ROUNDS; round++) {
      // Each run on ports of its own: the client of each round is new anyway.
      ServerProcess server = ServerProcess.startOnFreePorts(dataDir, List.of(), Map.of());
      ConfigService client = client(server.httpPort());
      try {
        verify(client, acknowledged);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger published = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(WRITERS);
        int roundNumber = round;
        for (int w = 0; w < WRITERS; w++) {
          int writer = w;
          Thread thread =
              new Thread(
                  () -> {
                    try {
                      for (int version = 1; !stop.get(); version++) {
                        String dataId =
                            "durable-" + roundNumber + "-" + writer + "-" + (version % 50);
                        boolean ok;
                        try {
                          ok = client.publishConfig(dataId, "DEFAULT_GROUP", "v=" + version);
                        } catch (Exception failed) {
                          ok = false;
                        }
                        if (ok) {
                          acknowledged.merge(dataId, version, Math::max);
                          published.incrementAndGet();
                        }
                      }
                    } finally {
                      done.countDown();
                    }
                  });
          thread.setDaemon(true);
          thread.start();
        }
        // Kill while the storm is running, at a different moment each round: once publishes
        // flow (a loaded machine may take a while to connect), after a random further delay.
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (published.get() < 20 && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        Thread.sleep(random.nextInt(1_500));
        server.kill();
        stop.set(true);
        done.await();
        System.out.printf(
            "round %d: %d publishes acknowledged before SIGKILL%n", round, published.get());
        assertThat(published.get()).isPositive();
      } finally {
        client.shutDown();
        server.close();
      }
    }
    try (ServerProcess server = ServerProcess.startOnFreePorts(dataDir, List.of(), Map.of())) {
      ConfigService client = client(server.httpPort());
      try {
        verify(client, acknowledged);
      } finally {
        client.shutDown();
      }
    }
  }

  private static void verify(ConfigService client, Map<String, Integer> acknowledged)
      throws Exception {
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, Integer> entry : acknowledged.entrySet()) {
      String content = client.getConfig(entry.getKey(), "DEFAULT_GROUP", 5_000);
      if (content == null) {
        problems.add(entry.getKey() + " is missing (acknowledged v=" + entry.getValue() + ")");
        continue;
      }
      int version = Integer.parseInt(content.substring("v=".length()));
      // A later publish may have been applied without its acknowledgement reaching the client.
      if (version < entry.getValue()) {
        problems.add(
            entry.getKey() + " has v=" + version + " < acknowledged v=" + entry.getValue());
      }
    }
    assertThat(problems).as("acknowledged writes after restart").isEmpty();
  }

  private static ConfigService client(int port) throws Exception {
    Properties properties = new Properties();
    properties.put(PropertyKeyConst.SERVER_ADDR, "127.0.0.1:" + port);
    return NacosFactory.createConfigService(properties);
  }
}
