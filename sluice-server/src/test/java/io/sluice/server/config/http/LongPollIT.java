package io.sluice.server.config.http;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.config.ContentMd5;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.FreePorts;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URLDecoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Nacos's HTTP long-poll listener against a real server, as 1.x clients and the agent use it. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LongPollIT {
  static final String CONFIGS = "/nacos/v1/cs/configs";
  static final String LISTENER = "/nacos/v1/cs/configs/listener";
  static final char WORD = '\u0002';
  static final char LINE = '\u0001';

  @TempDir static Path dataDir;

  private final ObjectMapper json = new ObjectMapper();
  private SluiceServer server;
  private OpenApiClient api;

  @BeforeAll
  void startServer() {
    server = FreePorts.startServer(ServerOptions.builder().dataDir(dataDir));
    assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
    api = new OpenApiClient(server.httpAddress());
  }

  @AfterAll
  void stop() {
    server.close();
  }

  static String listening(String dataId, String group, String md5, String tenant) {
    return dataId + WORD + group + WORD + md5 + (tenant == null ? "" : WORD + tenant) + LINE;
  }

  private void publish(String dataId, String group, String content, String... tenant)
      throws Exception {
    Map<String, String> form = params("dataId", dataId, "group", group, "content", content);
    if (tenant.length > 0) {
      form.put("tenant", tenant[0]);
    }
    assertThat(api.post(CONFIGS, form).body()).isEqualTo("true");
  }

  private CompletableFuture<HttpResponse<String>> poll(String listening, String... headers) {
    return api.postAsync(LISTENER, params("Listening-Configs", listening), headers);
  }

  private static String decoded(HttpResponse<String> response) {
    return URLDecoder.decode(response.body().trim(), StandardCharsets.UTF_8);
  }

  @Test
  void holdsAPollUntilAListenedConfigChangesThenAnswersWithIt() throws Exception {
    publish("held.yaml", "G", "v: 1");
    // Followed through the config's own watchers: the server's total of held polls also moves
    // when other tests' polls end.
    io.sluice.server.config.ConfigKey held =
        server.config().find(io.sluice.server.config.ConfigKey.of("", "G", "held.yaml")).key();

    CompletableFuture<HttpResponse<String>> poll =
        poll(
            listening("held.yaml", "G", ContentMd5.of("v: 1"), null),
            "Long-Pulling-Timeout",
            "30000");
    await().atMost(Duration.ofSeconds(10)).until(() -> !server.config().watchersOf(held).isEmpty());
    Thread.sleep(500);
    assertThat(poll).isNotDone();

    long changedAt = System.nanoTime();
    publish("held.yaml", "G", "v: 2");
    HttpResponse<String> answer = poll.get(10, TimeUnit.SECONDS);
    System.out.printf(
        "long-poll answered %.1f ms after the publish was acknowledged%n",
        (System.nanoTime() - changedAt) / 1e6);

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).endsWith("\n");
    assertThat(decoded(answer)).isEqualTo("held.yaml" + WORD + "G" + LINE);
    assertThat(answer.headers().firstValue("Cache-Control")).hasValue("no-cache,no-store");
    await().atMost(Duration.ofSeconds(5)).until(() -> server.config().watchersOf(held).isEmpty());
  }

  @Test
  void answersAtOnceWithTheConfigsWhoseMd5TheClientHasWrong() throws Exception {
    publish("stale-a", "G", "a");
    publish("stale-b", "G", "b", "dev");

    HttpResponse<String> answer =
        poll(
                listening("stale-a", "G", "old-md5", null)
                    + listening("stale-b", "G", ContentMd5.of("b"), "dev")
                    + listening("missing", "G", "", null)
                    + listening("missing-but-known", "G", "some-md5", "dev"),
                "Long-Pulling-Timeout",
                "30000")
            .get(10, TimeUnit.SECONDS);

    assertThat(decoded(answer))
        .isEqualTo(
            "stale-a" + WORD + "G" + LINE + "missing-but-known" + WORD + "G" + WORD + "dev" + LINE);
  }

  @Test
  void answersAtOnceWithNothingWhenAskedNotToHangUp() throws Exception {
    publish("no-hangup", "G", "x");

    HttpResponse<String> answer =
        poll(
                listening("no-hangup", "G", ContentMd5.of("x"), null),
                "Long-Pulling-Timeout",
                "30000",
                "Long-Pulling-Timeout-No-Hangup",
                "true")
            .get(10, TimeUnit.SECONDS);

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).isEmpty();
  }

  @Test
  void answersEmptyOnceTheHoldTimeHasPassed() throws Exception {
    publish("quiet", "G", "x");
    long start = System.nanoTime();

    // A timeout below the minimum is held for the minimum, 10 s.
    HttpResponse<String> answer =
        poll(listening("quiet", "G", ContentMd5.of("x"), null), "Long-Pulling-Timeout", "1000")
            .get(30, TimeUnit.SECONDS);

    System.out.printf(
        "an unchanged poll was held %.1f s (minimum hold 10 s)%n",
        (System.nanoTime() - start) / 1e9);
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).isEmpty();
  }

  @Test
  void echoesTheTenantAsTheClientSpelledIt() throws Exception {
    publish("spelled", "G", "x");

    CompletableFuture<HttpResponse<String>> poll =
        poll(
            listening("spelled", "G", ContentMd5.of("x"), "public"),
            "Long-Pulling-Timeout",
            "30000");
    await().atMost(Duration.ofSeconds(10)).until(() -> server.heldLongPolls() >= 1);
    publish("spelled", "G", "y");

    assertThat(decoded(poll.get(10, TimeUnit.SECONDS)))
        .isEqualTo("spelled" + WORD + "G" + WORD + "public" + LINE);
  }

  @Test
  void wakesOnlyTheListedAddressesForABetaPublish() throws Exception {
    publish("beta-watch", "G", "formal");
    String md5 = ContentMd5.of("formal");
    CompletableFuture<HttpResponse<String>> betaClient =
        poll(
            listening("beta-watch", "G", md5, null),
            "Long-Pulling-Timeout",
            "30000",
            "X-Forwarded-For",
            "10.1.1.1");
    CompletableFuture<HttpResponse<String>> otherClient =
        poll(
            listening("beta-watch", "G", md5, null),
            "Long-Pulling-Timeout",
            "30000",
            "X-Forwarded-For",
            "10.2.2.2");
    await().atMost(Duration.ofSeconds(10)).until(() -> server.heldLongPolls() >= 2);

    assertThat(
            api.post(
                    CONFIGS,
                    params("dataId", "beta-watch", "group", "G", "content", "beta"),
                    "betaIps",
                    "10.1.1.1")
                .body())
        .isEqualTo("true");

    assertThat(decoded(betaClient.get(10, TimeUnit.SECONDS)))
        .isEqualTo("beta-watch" + WORD + "G" + LINE);
    Thread.sleep(500);
    assertThat(otherClient).isNotDone();
    // Its md5 is still right for it: a fresh poll from it is held too, not answered.
    publish("beta-watch", "G", "formal 2");
    assertThat(decoded(otherClient.get(10, TimeUnit.SECONDS)))
        .isEqualTo("beta-watch" + WORD + "G" + LINE);
  }

  @Test
  void answersAShortPollInTheProbeModifyHeaders() throws Exception {
    publish("short", "G", "x");

    HttpResponse<String> answer =
        poll(listening("short", "G", "stale", null) + listening("other", "G", "", null))
            .get(10, TimeUnit.SECONDS);

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.headers().firstValue("Probe-Modify-Response")).hasValue("short:G;");
    assertThat(
            URLDecoder.decode(
                answer.headers().firstValue("Probe-Modify-Response-New").orElseThrow(),
                StandardCharsets.UTF_8))
        .isEqualTo("short" + WORD + "G" + LINE);
  }

  @Test
  void listsWhoListensToAConfig() throws Exception {
    publish("watched", "G", "x");
    CompletableFuture<HttpResponse<String>> poll =
        poll(listening("watched", "G", ContentMd5.of("x"), null), "Long-Pulling-Timeout", "30000");
    await().atMost(Duration.ofSeconds(10)).until(() -> server.heldLongPolls() >= 1);

    JsonNode listeners =
        json.readTree(api.get(LISTENER, params("dataId", "watched", "group", "G")).body());

    assertThat(listeners.get("collectStatus").asInt()).isEqualTo(200);
    assertThat(listeners.get("lisentersGroupkeyStatus").get("127.0.0.1").asText())
        .isEqualTo(ContentMd5.of("x"));
    publish("watched", "G", "y");
    poll.get(10, TimeUnit.SECONDS);
  }

  @Test
  void letsGoOfAHeldPollWhoseClientWentAway() throws Exception {
    publish("abandoned", "G", "x");
    io.sluice.server.config.ConfigKey abandoned =
        server.config().find(io.sluice.server.config.ConfigKey.of("", "G", "abandoned")).key();
    String body =
        OpenApiClient.form(
            params("Listening-Configs", listening("abandoned", "G", ContentMd5.of("x"), null)));
    // Watched through the poll's own config, not the server's total of held polls, which other
    // tests' polls ending meanwhile would move.
    try (Socket socket = new Socket("127.0.0.1", server.httpPort())) {
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST "
                  + LISTENER
                  + " HTTP/1.1\r\nHost: localhost\r\nLong-Pulling-Timeout: 30000\r\n"
                  + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                  + body.length()
                  + "\r\n\r\n"
                  + body)
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !server.config().watchersOf(abandoned).isEmpty());
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> server.config().watchersOf(abandoned).isEmpty());
  }

  @Test
  void refusesMalformedListeningConfigsAndKeepsServing() throws Exception {
    assertThat(api.post(LISTENER, params()).statusCode()).isEqualTo(400);
    HttpResponse<String> tooFewFields =
        poll("only-a-data-id" + LINE, "Long-Pulling-Timeout", "30000").get(10, TimeUnit.SECONDS);
    assertThat(tooFewFields.statusCode()).isEqualTo(400);
    assertThat(tooFewFields.body()).contains("invalid probeModify");
    assertThat(
            poll("a" + WORD + "b" + WORD + "c" + WORD + "d" + WORD + "e" + LINE)
                .get(10, TimeUnit.SECONDS)
                .statusCode())
        .isEqualTo(400);
    assertThat(
            poll(listening("x", "G", "", null), "Long-Pulling-Timeout", "soon")
                .get(10, TimeUnit.SECONDS)
                .statusCode())
        .isEqualTo(400);
    assertThat(api.postRaw(LISTENER, "Listening-Configs=%G1").statusCode()).isEqualTo(400);

    StringBuilder tooMany = new StringBuilder();
    for (int i = 0; i <= ListeningConfigs.MAX_KEYS; i++) {
      tooMany.append(listening("key-" + i, "G", "", null));
    }
    HttpResponse<String> overLimit =
        poll(tooMany.toString(), "Long-Pulling-Timeout", "30000").get(10, TimeUnit.SECONDS);
    assertThat(overLimit.statusCode()).isEqualTo(400);
    assertThat(overLimit.body()).contains("10000");

    StringBuilder atLimit = new StringBuilder();
    for (int i = 0; i < ListeningConfigs.MAX_KEYS; i++) {
      atLimit.append(listening("key-" + i, "G", "stale", null));
    }
    HttpResponse<String> allChanged =
        poll(atLimit.toString(), "Long-Pulling-Timeout", "30000").get(10, TimeUnit.SECONDS);
    assertThat(allChanged.statusCode()).isEqualTo(200);
    assertThat(decoded(allChanged).split(String.valueOf(LINE))).hasSize(ListeningConfigs.MAX_KEYS);

    publish("after-bad-polls", "G", "ok");
    assertThat(api.get(CONFIGS, params("dataId", "after-bad-polls", "group", "G")).body())
        .isEqualTo("ok");
  }
}
