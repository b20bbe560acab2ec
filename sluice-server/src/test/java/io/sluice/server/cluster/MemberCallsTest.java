package io.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.cluster.http.ClusterView;
import io.sluice.server.cluster.http.MemberCalls;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How a node asks the other members on a caller's behalf, against a real HTTPS server on loopback
 * serving the test certificate (valid for 127.0.0.1) as a member would.
 */
class MemberCallsTest {
  private static final Path CERT =
      Path.of("src/test/resources/tls/server-cert.pem").toAbsolutePath();
  private static final Path KEY = Path.of("src/test/resources/tls/server-key.pem").toAbsolutePath();

  private Vertx vertx;
  private HttpServer member;
  private final List<String> tokensSeen = new CopyOnWriteArrayList<>();

  @BeforeEach
  void startAMember() throws Exception {
    vertx = Vertx.vertx();
    member =
        vertx
            .createHttpServer(
                new HttpServerOptions()
                    .setHost("127.0.0.1")
                    .setPort(0)
                    .setSsl(true)
                    .setKeyCertOptions(
                        new PemKeyCertOptions()
                            .setCertPath(CERT.toString())
                            .setKeyPath(KEY.toString())))
            .requestHandler(
                request -> {
                  tokensSeen.add(String.valueOf(request.getHeader("accessToken")));
                  if (request.path().equals("/refused")) {
                    request.response().setStatusCode(401).end("token invalid");
                  } else {
                    request.response().end("{\"count\":1}");
                  }
                })
            .listen()
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private MemberCalls calls(String... others) {
    List<ClusterView.Member> members = new ArrayList<>();
    members.add(new ClusterView.Member("127.0.0.2", 8848, 0, true, true, "UP"));
    for (String other : others) {
      int colon = other.lastIndexOf(':');
      members.add(
          new ClusterView.Member(
              other.substring(0, colon),
              Integer.parseInt(other.substring(colon + 1)),
              0,
              false,
              false,
              "UP"));
    }
    // Ample time: a cold JVM's first TLS handshake on a loaded machine takes seconds.
    return new MemberCalls(
        () -> new ClusterView(1, List.copyOf(members)), vertx, CERT, ServerClock.SYSTEM, 10_000);
  }

  @Test
  void asksEveryOtherMemberOverHttpsWithTheCallersTokenAndNamesThoseThatDidNotAnswer()
      throws Exception {
    String up = "127.0.0.1:" + member.actualPort();
    String down = "127.0.0.1:1"; // nothing listens on port 1
    MemberCalls calls = calls(up, down);

    MemberCalls.Gathered<String> gathered =
        calls.askOthers("/share", "the-callers-token", body -> body).get(10, TimeUnit.SECONDS);

    assertThat(gathered.answers())
        .as("%s", gathered)
        .containsExactly(new MemberCalls.Answer<>(up, "{\"count\":1}"));
    assertThat(tokensSeen).containsExactly("the-callers-token");
    assertThat(gathered.missing())
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.address()).isEqualTo(down);
              assertThat(m.reason()).isEqualTo("connection refused");
            });
    // Not reached a moment ago: skipped at once, and said so.
    MemberCalls.Gathered<String> again =
        calls.askOthers("/share", null, body -> body).get(10, TimeUnit.SECONDS);
    assertThat(again.missing())
        .singleElement()
        .satisfies(
            m ->
                assertThat(m.reason())
                    .startsWith("connection refused at ")
                    .contains("asked again"));
    assertThat(tokensSeen).hasSize(2);
  }

  @Test
  void aMemberThatAnswersAnErrorIsNamedWithItAndAskedAgainNextTime() throws Exception {
    String up = "127.0.0.1:" + member.actualPort();
    MemberCalls calls = calls(up);

    for (int round = 1; round <= 2; round++) {
      MemberCalls.Gathered<String> gathered =
          calls.askOthers("/refused", "t", body -> body).get(10, TimeUnit.SECONDS);
      assertThat(gathered.answers()).isEmpty();
      assertThat(gathered.missing())
          .singleElement()
          .satisfies(m -> assertThat(m.reason()).isEqualTo("answered HTTP 401: token invalid"));
      assertThat(tokensSeen).hasSize(round);
    }
  }

  @Test
  void anAnswerItsReaderCannotReadNamesTheMemberMissingWithTheReason() throws Exception {
    String up = "127.0.0.1:" + member.actualPort();
    MemberCalls calls = calls(up);

    MemberCalls.AnswerReader<Integer> reader =
        body -> {
          throw new IllegalArgumentException("no 'apps' list in the answer\nsecond line");
        };

    MemberCalls.Gathered<Integer> gathered =
        calls.askOthers("/share", "t", reader).get(10, TimeUnit.SECONDS);

    assertThat(gathered.answers()).isEmpty();
    assertThat(gathered.missing())
        .containsExactly(
            new MemberCalls.Missing(
                up, "answered what could not be read: no 'apps' list in the answer"));
  }

  @Test
  void aStandaloneServerAsksNobody() throws Exception {
    MemberCalls calls = calls();
    assertThat(calls.others()).isEmpty();
    assertThat(calls.selfAddress()).isNull();
    MemberCalls.Gathered<String> gathered =
        calls.askOthers("/share", "t", body -> body).get(1, TimeUnit.SECONDS);
    assertThat(gathered.answers()).isEmpty();
    assertThat(gathered.missing()).isEmpty();
    assertThat(tokensSeen).isEmpty();
  }
}
