package io.sluice.agent.reporting;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.sluice.agent.logging.AgentLog;
import io.sluice.agent.rules.ConfigCredentials;
import io.sluice.flow.Direction;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.Permit;
import io.sluice.flow.Resource;
import io.sluice.flow.RuleKind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The reporter against a real HTTP server standing in for sluice-server's traffic endpoint. */
class TrafficReporterTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final AtomicLong wallMillis = new AtomicLong(1_733_000_000_000L);
  private final FlowRegistry registry = FlowRegistry.builder().ticker(nanos::get).build();
  private final List<String> reports = new CopyOnWriteArrayList<>();
  private final AtomicInteger status = new AtomicInteger(200);
  private int sendEvery = 1;
  private final Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();

  /** With auth on: the token the traffic endpoint takes, the one the next login issues. */
  private final AtomicReference<String> validToken = new AtomicReference<>();

  private final AtomicInteger logins = new AtomicInteger();
  private final AtomicInteger loginAttempts = new AtomicInteger();
  private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
  private final AgentLog log =
      AgentLog.toStream(new PrintStream(logged, true, StandardCharsets.UTF_8), AgentLog.Level.INFO);
  private HttpServer server;

  @BeforeEach
  void startServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    server.createContext(TrafficSender.PATH, this::receive);
    server.createContext("/nacos/v1/auth/users/login", this::login);
    server.start();
  }

  @AfterEach
  void stopServer() {
    server.stop(0);
  }

  private void login(HttpExchange exchange) throws IOException {
    String form = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    boolean right = form.equals("username=agent&password=s3cret");
    loginAttempts.incrementAndGet();
    if (right) {
      logins.incrementAndGet();
    }
    byte[] answer =
        (right
                ? "{\"accessToken\":\"" + validToken.get() + "\",\"tokenTtl\":18000}"
                : "unknown user!")
            .getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(right ? 200 : 403, answer.length);
    exchange.getResponseBody().write(answer);
    exchange.close();
  }

  private void receive(HttpExchange exchange) throws IOException {
    clientPorts.add(exchange.getRemoteAddress().getPort());
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    byte[] answer =
        (status.get() == 200 ? "ok" : "no reports today").getBytes(StandardCharsets.UTF_8);
    int code = status.get();
    String query = exchange.getRequestURI().getRawQuery();
    if (validToken.get() != null && !("accessToken=" + validToken.get()).equals(query)) {
      code = 401;
    }
    if (code == 200) {
      reports.add(URLDecoder.decode(body.substring("report=".length()), StandardCharsets.UTF_8));
    }
    exchange.sendResponseHeaders(code, answer.length);
    exchange.getResponseBody().write(answer);
    exchange.close();
  }

  private TrafficReporter reporter(String address) {
    return reporter(address, ConfigCredentials.NONE);
  }

  private TrafficReporter reporter(String address, ConfigCredentials credentials) {
    return new TrafficReporter(
        "orders",
        "42@host",
        "gray",
        registry,
        () -> Map.of("GET /orders", "Spring MVC route", "GET /idle", "Spring MVC route"),
        () -> 2,
        new TrafficSender(List.of(address), credentials),
        wallMillis::get,
        sendEvery,
        log);
  }

  private void secondPasses() {
    nanos.addAndGet(1_000_000_000L);
    wallMillis.addAndGet(1_000);
  }

  private void callsInThisSecond(Resource resource, int calls) {
    for (int i = 0; i < calls; i++) {
      long permit = resource.tryAcquire();
      if (Permit.isAdmitted(permit)) {
        resource.release(permit);
      }
    }
  }

  @Test
  void reportsEachCompleteSecondOfEveryResourceWithStatistics() {
    registry.load(RuleKind.FLOW, "[{\"resource\":\"GET /orders\",\"grade\":1,\"count\":5}]");
    Resource orders = registry.resource("GET /orders", Direction.INBOUND);
    TrafficReporter reporter = reporter("127.0.0.1:" + server.getAddress().getPort());

    callsInThisSecond(orders, 8);
    secondPasses();
    reporter.tick();

    assertThat(reports).hasSize(1);
    String report = reports.get(0);
    assertThat(report)
        .contains("\"app\":\"orders\"", "\"instance\":\"42@host\"", "\"lane\":\"gray\"")
        .contains("{\"name\":\"GET /idle\",\"kind\":\"Spring MVC route\"}")
        .contains("\"t\":" + (wallMillis.get() - 1_000))
        .contains("{\"name\":\"GET /orders\",\"pass\":5,\"block\":3,\"failed\":0");
    assertThat(reporter.pendingSeconds()).isZero();

    reporter.tick(); // no new second: nothing new to send
    assertThat(reports).hasSize(1);

    callsInThisSecond(orders, 1);
    secondPasses();
    reporter.tick();
    assertThat(reports).hasSize(2);
    // The names seen did not change: the server has them already.
    assertThat(reports.get(1)).doesNotContain("\"seen\"").contains("{\"name\":\"GET /orders\"");
  }

  @Test
  void batchesTheSecondsOfSeveralTicksIntoOneReport() {
    sendEvery = 3;
    registry.load(RuleKind.FLOW, "[{\"resource\":\"GET /orders\",\"grade\":1,\"count\":100}]");
    Resource orders = registry.resource("GET /orders", Direction.INBOUND);
    TrafficReporter reporter = reporter("127.0.0.1:" + server.getAddress().getPort());
    for (int s = 1; s <= 7; s++) {
      callsInThisSecond(orders, s);
      secondPasses();
      reporter.tick();
    }
    // Ticks 3 and 6 sent; the 7th second waits for the next report.
    assertThat(reports).hasSize(2);
    assertThat(reports.get(0)).contains("\"pass\":1,", "\"pass\":2,", "\"pass\":3,");
    assertThat(reports.get(1)).contains("\"pass\":4,", "\"pass\":5,", "\"pass\":6,");
    assertThat(reporter.pendingSeconds()).isEqualTo(1);
  }

  @Test
  void sendsEveryReportOverOneKeptAliveConnection() {
    registry.load(RuleKind.FLOW, "[{\"resource\":\"GET /orders\",\"grade\":1,\"count\":100}]");
    Resource orders = registry.resource("GET /orders", Direction.INBOUND);
    TrafficReporter reporter = reporter("127.0.0.1:" + server.getAddress().getPort());
    for (int s = 0; s < 5; s++) {
      callsInThisSecond(orders, 1);
      secondPasses();
      reporter.tick();
    }
    assertThat(reports).hasSize(5);
    assertThat(clientPorts).hasSize(1);
  }

  @Test
  void aRefusedReportIsLoggedOnceWithTheServersAnswer() {
    registry.load(RuleKind.FLOW, "[{\"resource\":\"GET /orders\",\"grade\":1,\"count\":100}]");
    Resource orders = registry.resource("GET /orders", Direction.INBOUND);
    TrafficReporter reporter = reporter("127.0.0.1:" + server.getAddress().getPort());
    status.set(403);
    for (int s = 0; s < 3; s++) {
      callsInThisSecond(orders, 1);
      secondPasses();
      reporter.tick();
    }
    assertThat(logged.toString(StandardCharsets.UTF_8))
        .containsOnlyOnce("traffic reports do not reach the server")
        .contains("answered 403: no reports today");
    assertThat(reporter.pendingSeconds()).isEqualTo(3);
  }

  @Test
  void keepsTheLastSecondsBoundedWhileTheServerFailsAndSaysHowManyItDropped() {
    registry.load(RuleKind.FLOW, "[{\"resource\":\"GET /orders\",\"grade\":1,\"count\":100}]");
    Resource orders = registry.resource("GET /orders", Direction.INBOUND);
    TrafficReporter reporter = reporter("127.0.0.1:" + server.getAddress().getPort());
    status.set(503);
    int seconds = TrafficReporter.MAX_PENDING_SECONDS + 4;
    for (int s = 0; s < seconds; s++) {
      callsInThisSecond(orders, 1);
      secondPasses();
      reporter.tick();
      assertThat(reporter.pendingSeconds())
          .isLessThanOrEqualTo(TrafficReporter.MAX_PENDING_SECONDS);
    }
    assertThat(reporter.droppedSeconds()).isEqualTo(4);
    assertThat(logged.toString(StandardCharsets.UTF_8))
        .containsOnlyOnce("traffic reports do not reach the server");

    status.set(200);
    callsInThisSecond(orders, 1);
    secondPasses();
    reporter.tick();
    assertThat(reports).hasSize(1);
    assertThat(reports.get(0)).contains("\"dropped\":5");
    assertThat(reports.get(0).split("\"t\":", -1)).hasSize(TrafficReporter.MAX_PENDING_SECONDS + 1);
    assertThat(reporter.pendingSeconds()).isZero();
    assertThat(logged.toString(StandardCharsets.UTF_8))
        .contains("traffic reports reach the server again");
  }

  @Test
  void logsInWithTheAgentsCredentialsWhenTheServerHasAuthOnAndAgainWhenTheTokenIsRefused() {
    validToken.set("token-1");
    registry.load(RuleKind.FLOW, "[{\"resource\":\"GET /orders\",\"grade\":1,\"count\":100}]");
    Resource orders = registry.resource("GET /orders", Direction.INBOUND);
    String address = "127.0.0.1:" + server.getAddress().getPort();

    TrafficReporter anonymous = reporter(address);
    callsInThisSecond(orders, 1);
    secondPasses();
    anonymous.tick();
    assertThat(reports).isEmpty();
    assertThat(logged.toString(StandardCharsets.UTF_8))
        .contains("traffic reports do not reach the server (" + address + " answered 401");

    TrafficReporter reporter = reporter(address, new ConfigCredentials("agent", "s3cret", null));
    for (int s = 0; s < 3; s++) {
      callsInThisSecond(orders, 1);
      secondPasses();
      reporter.tick();
    }
    assertThat(reports).hasSize(3);
    assertThat(logins.get()).isEqualTo(1); // one login, its token reused

    validToken.set("token-2"); // the server no longer takes the first token
    callsInThisSecond(orders, 1);
    secondPasses();
    reporter.tick(); // refused: the token is forgotten, the second kept
    callsInThisSecond(orders, 1);
    secondPasses();
    reporter.tick(); // logs in again and sends both seconds
    assertThat(logins.get()).isEqualTo(2);
    assertThat(reports).hasSize(4);
    assertThat(reports.get(3).split("\"t\":", -1)).hasSize(3);

    TrafficReporter withToken = reporter(address, new ConfigCredentials(null, null, "token-2"));
    callsInThisSecond(orders, 1);
    secondPasses();
    withToken.tick();
    assertThat(reports).hasSize(5);
    assertThat(logins.get()).isEqualTo(2);
  }

  @Test
  void aRefusedLoginIsNotAskedAgainEverySecond() {
    validToken.set("token-1");
    registry.load(RuleKind.FLOW, "[{\"resource\":\"GET /orders\",\"grade\":1,\"count\":100}]");
    Resource orders = registry.resource("GET /orders", Direction.INBOUND);
    TrafficReporter reporter =
        reporter(
            "127.0.0.1:" + server.getAddress().getPort(),
            new ConfigCredentials("agent", "not-the-password", null));
    for (int s = 0; s < 5; s++) {
      callsInThisSecond(orders, 1);
      secondPasses();
      reporter.tick();
    }
    assertThat(reports).isEmpty();
    assertThat(loginAttempts.get()).isEqualTo(1); // then refused at once, for 5 s and more
    String said = logged.toString(StandardCharsets.UTF_8);
    assertThat(said).containsOnlyOnce("traffic reports do not reach the server");
    assertThat(said).contains("answered 403").doesNotContain("not-the-password");
  }

  @Test
  void anUnreachableServerCostsOneQuickFailedAttemptPerSecond() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    registry.load(RuleKind.FLOW, "[{\"resource\":\"GET /orders\",\"grade\":1,\"count\":100}]");
    Resource orders = registry.resource("GET /orders", Direction.INBOUND);
    TrafficReporter reporter = reporter("127.0.0.1:" + closedPort);
    for (int s = 0; s < 3; s++) {
      callsInThisSecond(orders, 1);
      secondPasses();
      long before = System.nanoTime();
      reporter.tick();
      // A refused connection fails at once; generous bound, catching only a hang.
      assertThat(System.nanoTime() - before)
          .isLessThan(TrafficSender.TIMEOUT.toNanos() + 1_000_000_000L);
    }
    assertThat(reporter.pendingSeconds()).isEqualTo(3);
  }

  @Test
  void encodesOnlyWhatTheFormFormatNeedsAndDecodesBackToTheSameJson() {
    String name = "GET /a?b=1&c=2+3 100% é 😀 \"q\" \\ \t\u0001";
    FormJson json = new FormJson(4).raw("{\"name\":").string(name).raw(",\"x\":[");
    json.number(0).raw(',').number(-42).raw(',').number(Long.MAX_VALUE).raw(',');
    json.number(Long.MIN_VALUE).raw("]}");
    assertThat(json.toString())
        .startsWith("{\"name\":\"GET+/a?b%3D1%26c%3D2%2B3+100%25+%C3%A9+%F0%9F%98%80");
    assertThat(URLDecoder.decode(json.toString(), StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"name\":\"GET /a?b=1&c=2+3 100% é 😀 \\\"q\\\" \\\\ \\t\\u0001\",\"x\":[0,-42,"
                + Long.MAX_VALUE
                + ","
                + Long.MIN_VALUE
                + "]}");
  }

  @Test
  void keepsTheBusiestResourcesOfASecondPastTheBound() {
    StringBuilder rules = new StringBuilder("[");
    int resources = TrafficReporter.MAX_RESOURCES_PER_SECOND + 5;
    for (int i = 0; i < resources; i++) {
      rules.append(i == 0 ? "" : ",").append("{\"resource\":\"r").append(i);
      rules.append("\",\"grade\":1,\"count\":100000}");
    }
    registry.load(RuleKind.FLOW, rules.append(']').toString());
    for (int i = 0; i < resources; i++) {
      // r0 to r4 get one call each, every other resource two: the five quietest go.
      callsInThisSecond(registry.resource("r" + i, Direction.INBOUND), i < 5 ? 1 : 2);
    }
    TrafficReporter reporter = reporter("127.0.0.1:" + server.getAddress().getPort());
    secondPasses();
    reporter.tick();
    assertThat(reports).hasSize(1);
    String report = reports.get(0);
    assertThat(report.split("\"pass\":2,", -1))
        .hasSize(TrafficReporter.MAX_RESOURCES_PER_SECOND + 1);
    assertThat(report).doesNotContain("\"pass\":1,", ",,", "[,");
    assertThat(report).contains("{\"name\":\"r5\",", "{\"name\":\"r1004\",");
  }
}
