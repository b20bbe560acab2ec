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
  // What the probe answers: whether the server to try next accepts connections.
  private volatile boolean serverAccepts;
  private int probes;
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
    return watcher(servers, hold, ConfigCredentials.NONE);
  }

  private RuleWatcher watcher(List<String> servers, Duration hold, ConfigCredentials credentials) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    return new RuleWatcher(
        () -> new ConfigCenterClient(http, servers, Duration.ofSeconds(2), credentials),
        Map.of(FLOW, RuleType.FLOW),
        sink,
        new RuleCache(cacheDir),
        new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30), () -> 0.5),
        sleeps::add,
        client -> {
          probes++;
          return serverAccepts;
        },
        hold,
        log);
  }

  /**
   * A config center that lets in user {@code agent} with password {@code s3cret} (its tokens good
   * for {@code tokenTtlSeconds}) and holds {@code RULES_A}; and a watcher of it that logs in as
   * {@code agent} with {@code password}.
   */
  private RuleWatcher watcherLoggingIn(String password, long tokenTtlSeconds) throws Exception {
    server = new FakeConfigCenter();
    server.requireLogin("agent", "s3cret", tokenTtlSeconds);
    server.publish(FLOW, RULES_A);
    return watcher(
        List.of(server.address()),
        Duration.ofSeconds(1),
        new ConfigCredentials("agent", password, null));
  }

  /** The total time slept, in ms. */
  private long sleptMillis() {
    return sleeps.stream().mapToLong(Duration::toMillis).sum();
  }

  @Test
  void logsInWithItsCredentialsAndLogsInAgainWhenTheTokenIsRefused() throws Exception {
    RuleWatcher watcher = watcherLoggingIn("s3cret", 18_000);

    watcher.pollOnce();
    assertThat(sink.applied).containsExactly("FLOW:" + RULES_A);
    assertThat(server.logins.get()).isEqualTo(1);

    server.revokeTokens();
    server.publish(FLOW, RULES_B);
    watcher.pollOnce(); // the listener is refused: 403
    assertThat(logBytes.toString(StandardCharsets.UTF_8)).contains("refuses the agent");
    watcher.pollOnce(); // logs in again and reads
    assertThat(sink.applied).containsExactly("FLOW:" + RULES_A, "FLOW:" + RULES_B);
    assertThat(server.logins.get()).isEqualTo(2);
  }

  @Test
  void renewsTheTokenBeforeItExpires() throws Exception {
    RuleWatcher watcher = watcherLoggingIn("s3cret", 1); // renewed after 0.9 s

    for (int i = 0; i < 5; i++) {
      watcher.pollOnce(); // each held listen lasts half a second here
    }
    assertThat(server.logins.get()).isGreaterThanOrEqualTo(2);
    assertThat(logBytes.toString(StandardCharsets.UTF_8)).doesNotContain("refuses the agent");
  }

  @Test
  void aWrongPasswordIsReportedOnceWithoutThePasswordAndNoRulesChange() throws Exception {
    RuleWatcher watcher = watcherLoggingIn("wrong-one", 18_000);

    watcher.pollOnce();
    watcher.pollOnce();

    String logged = logBytes.toString(StandardCharsets.UTF_8);
    assertThat(logged.split("refuses the agent", -1)).as("reported once").hasSize(2);
    assertThat(logged)
        .contains("answered 401")
        .contains("user 'agent'")
        .doesNotContain("wrong-one");
    assertThat(sink.applied).isEmpty();
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

    List<Long> waits = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      long before = sleptMillis();
      watcher.pollOnce();
      waits.add(sleptMillis() - before);
    }

    assertThat(sink.applied).containsExactly("FLOW:" + RULES_A);
    assertThat(waits).containsExactly(500L, 1000L, 2000L, 4000L);
    // Knocked on the server every 250 ms while waiting, cheaply: nothing answered.
    assertThat(probes).isEqualTo(1 + 3 + 7 + 15);
    assertThat(logBytes.toString(StandardCharsets.UTF_8)).containsOnlyOnce("unreachable");
  }

  @Test
  void retriesAtOnceWhenTheServerAcceptsConnectionsAgainAndAppliesWhatChanged() throws Exception {
    int port = unusedPort();
    RuleWatcher watcher = watcher(List.of("127.0.0.1:" + port), Duration.ofSeconds(1));
    for (int i = 0; i < 7; i++) {
      watcher.pollOnce(); // down for a while: the backoff has grown to 32 s, capped at 30
    }
    serverAccepts = true; // the server comes back while the watcher waits

    long before = sleptMillis();
    watcher.pollOnce(); // fails, waits one probe interval, finds the server, returns to retry
    long waited = sleptMillis() - before;
    server = new FakeConfigCenter(port);
    server.publish(FLOW, RULES_A);
    watcher.pollOnce();

    assertThat(waited).isEqualTo(250);
    assertThat(sink.applied).containsExactly("FLOW:" + RULES_A);
    assertThat(logBytes.toString(StandardCharsets.UTF_8))
        .contains("accepts connections again; retrying now instead of in")
        .contains("answers again");
  }

  @Test
  void retriesAServerThatAnswersWithAServerErrorEveryHalfSecond() throws Exception {
    server = new FakeConfigCenter();
    server.failWith(503);
    RuleWatcher watcher = watcher(List.of(server.address()), Duration.ofSeconds(1));

    List<Long> waits = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      long before = sleptMillis();
      watcher.pollOnce();
      waits.add(sleptMillis() - before);
    }

    assertThat(waits).containsExactly(500L, 500L, 500L, 500L, 500L);
    assertThat(probes).isZero();
    assertThat(logBytes.toString(StandardCharsets.UTF_8)).containsOnlyOnce("failing");
  }

  @Test
  void neverReportsADocumentRemovedThatNeverExisted() throws Exception {
    server = new FakeConfigCenter();
    RuleWatcher watcher = watcher(List.of(server.address()), Duration.ofSeconds(1));

    watcher.pollOnce();
    watcher.pollOnce();

    assertThat(sink.applied).isEmpty();
    assertThat(logBytes.toString(StandardCharsets.UTF_8)).doesNotContain("removed");
  }

  @Test
  void reportsCachedRulesRemovedWhenTheServerNoLongerHasTheirDocument() throws Exception {
    new RuleCache(cacheDir).write(FLOW, RULES_A);
    server = new FakeConfigCenter();
    RuleWatcher watcher = watcher(List.of(server.address()), Duration.ofSeconds(1));
    watcher.applyCached();

    watcher.pollOnce();

    assertThat(sink.applied).containsExactly("FLOW:" + RULES_A, "FLOW:null");
    assertThat(logBytes.toString(StandardCharsets.UTF_8))
        .containsOnlyOnce("removed rules (document deleted) SENTINEL_GROUP/orders-flow-rules");
  }

  @Test
  void failsOverToTheNextAddressAndResetsTheBackoffOnSuccess() throws Exception {
    server = new FakeConfigCenter();
    server.publish(FLOW, RULES_A);
    RuleWatcher watcher =
        watcher(List.of("127.0.0.1:" + unusedPort(), server.address()), Duration.ofSeconds(1));

    watcher.pollOnce(); // the first address fails
    watcher.pollOnce(); // the second answers

    assertThat(sleptMillis()).isEqualTo(500);
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
