package io.sluice.agent.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.agent.logging.AgentLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watcher against a real local HTTP server that speaks Nacos's v1 config API. Each test drives
 * {@link RuleWatcher#pollOnce()} on the test thread, so there is no sleeping and no racing.
 */
class RuleWatcherTest {
  private static final ConfigKey FLOW = new ConfigKey("orders-flow-rules", "SENTINEL_GROUP", "");
  private static final String RULES_A = "[{\"resource\":\"GET /a\",\"count\":5}]";
  private static final String RULES_B = "[{\"resource\":\"GET /b\",\"count\":7}]";

  @TempDir Path cacheDir;

  private final RecordingSink sink = new RecordingSink();
  private final List<Duration> sleeps = new ArrayList<>();
  private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
  private final AgentLog log =
      AgentLog.toStream(
          new PrintStream(logBytes, true, StandardCharsets.UTF_8), AgentLog.Level.INFO);
  private FakeConfigCenter server;

  @AfterEach
  void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  private RuleWatcher watcher(List<String> servers, Duration hold) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    return new RuleWatcher(
        () -> new ConfigCenterClient(http, servers, Duration.ofSeconds(2)),
        Map.of(FLOW, RuleType.FLOW),
        sink,
        new RuleCache(cacheDir),
        new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30), () -> 0.5),
        sleeps::add,
        hold,
        log);
  }

  @Test
  void appliesTheDocumentReadAtStartAndCachesIt() throws Exception {
    server = new FakeConfigCenter();
    server.publish(FLOW, RULES_A);
    RuleWatcher watcher = watcher(List.of(server.address()), Duration.ofSeconds(2));

    watcher.pollOnce();

    assertThat(sink.applied).containsExactly("FLOW:" + RULES_A);
    assertThat(new RuleCache(cacheDir).read(FLOW)).isEqualTo(RULES_A);
  }

  @Test
  void appliesAPublishAsSoonAsTheListenerReportsIt() throws Exception {
    server = new FakeConfigCenter();
    server.publish(FLOW, RULES_A);
    RuleWatcher watcher = watcher(List.of(server.address()), Duration.ofSeconds(20));
    watcher.pollOnce();

    Thread publisher =
        new Thread(
            () -> {
              try {
                server.holding.await(); // the watcher's long-poll is held: publish into it
              } catch (InterruptedException e) {
                return;
              }
              server.publish(FLOW, RULES_B);
            });
    publisher.start();
    watcher.pollOnce(); // holds until the publish, far less than the 20 s hold
    publisher.join();

    assertThat(sink.applied).containsExactly("FLOW:" + RULES_A, "FLOW:" + RULES_B);
    assertThat(server.listens.get()).isEqualTo(1);
  }

  @Test
  void aDeletedDocumentRemovesTheRulesAndTheCacheEntry() throws Exception {
    server = new FakeConfigCenter();
    server.publish(FLOW, RULES_A);
    RuleWatcher watcher = watcher(List.of(server.address()), Duration.ofSeconds(5));
    watcher.pollOnce();

    server.publish(FLOW, null);
    watcher.pollOnce();

    assertThat(sink.applied).containsExactly("FLOW:" + RULES_A, "FLOW:null");
    assertThat(new RuleCache(cacheDir).read(FLOW)).isNull();
  }

  @Test
  void keepsTheLastGoodRulesAndReportsAnInvalidDocumentOnce() throws Exception {
    server = new FakeConfigCenter();
    server.publish(FLOW, RULES_A);
    RuleWatcher watcher = watcher(List.of(server.address()), Duration.ofSeconds(1));
    watcher.pollOnce();

    server.publish(FLOW, "not json");
    watcher.pollOnce(); // reads the bad document
    watcher.pollOnce(); // the listener must not wake for the same bad content again
    watcher.pollOnce();

    assertThat(sink.applied).containsExactly("FLOW:" + RULES_A);
    assertThat(sink.rejected).isEqualTo(1);
    assertThat(logBytes.toString(StandardCharsets.UTF_8))
        .containsOnlyOnce("invalid rules in SENTINEL_GROUP/orders-flow-rules");
    assertThat(new RuleCache(cacheDir).read(FLOW)).isEqualTo(RULES_A);
    assertThat(server.gets.get()).isEqualTo(2);

    server.publish(FLOW, RULES_B);
    watcher.pollOnce();
    assertThat(sink.applied).containsExactly("FLOW:" + RULES_A, "FLOW:" + RULES_B);
  }

  @Test
  void appliesCachedRulesBeforeAnyServerAnswers() throws Exception {
    new RuleCache(cacheDir).write(FLOW, RULES_A);
    RuleWatcher watcher = watcher(List.of("127.0.0.1:" + unusedPort()), Duration.ofSeconds(1));

    watcher.applyCached();

    assertThat(sink.applied).containsExactly("FLOW:" + RULES_A);
  }

  @Test
  void anUnreachableServerLeavesTheRulesAndBacksOffExponentially() throws Exception {
    new RuleCache(cacheDir).write(FLOW, RULES_A);
    RuleWatcher watcher = watcher(List.of("127.0.0.1:" + unusedPort()), Duration.ofSeconds(1));
    watcher.applyCached();

    for (int i = 0; i < 4; i++) {
      watcher.pollOnce();
    }

    assertThat(sink.applied).containsExactly("FLOW:" + RULES_A);
    assertThat(sleeps)
        .containsExactly(
            Duration.ofMillis(500),
            Duration.ofMillis(1000),
            Duration.ofMillis(2000),
            Duration.ofMillis(4000));
    assertThat(logBytes.toString(StandardCharsets.UTF_8)).containsOnlyOnce("unreachable");
  }

  @Test
  void failsOverToTheNextAddressAndResetsTheBackoffOnSuccess() throws Exception {
    server = new FakeConfigCenter();
    server.publish(FLOW, RULES_A);
    RuleWatcher watcher =
        watcher(List.of("127.0.0.1:" + unusedPort(), server.address()), Duration.ofSeconds(1));

    watcher.pollOnce(); // the first address fails
    watcher.pollOnce(); // the second answers

    assertThat(sleeps).containsExactly(Duration.ofMillis(500));
    assertThat(sink.applied).containsExactly("FLOW:" + RULES_A);
    assertThat(logBytes.toString(StandardCharsets.UTF_8)).contains("answers again");
  }

  private static int unusedPort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static final class RecordingSink implements RuleSink {
    final List<String> applied = new CopyOnWriteArrayList<>();
    int rejected;

    @Override
    public void apply(RuleType type, String json) throws InvalidRulesException {
      if (json != null && !json.startsWith("[")) {
        rejected++;
        throw new InvalidRulesException("not a JSON array", null);
      }
      applied.add(type + ":" + json);
    }
  }
}
