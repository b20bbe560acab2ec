package io.sluice.bench.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The lean HTTP/1.1 driver against a real HTTP server on loopback. */
class Http1OpenLoopTest {
  private final ExecutorService handlers = Executors.newCachedThreadPool();
  private final CountDownLatch releaseStalled = new CountDownLatch(1);
  private final AtomicInteger served = new AtomicInteger();
  private final Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
  private HttpServer server;
  private InetSocketAddress address;

  @BeforeEach
  void startServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(handlers);
    // A fixed-length answer, refused (429) for odd request numbers.
    server.createContext(
        "/fixed",
        exchange -> {
          int n = number(exchange);
          answer(exchange, n % 2 == 0 ? 200 : 429, "{\"n\":" + n + "}", false);
        });
    // A chunked answer of three chunks.
    server.createContext(
        "/chunked",
        exchange -> {
          served.incrementAndGet();
          exchange.sendResponseHeaders(200, 0);
          for (int i = 0; i < 3; i++) {
            exchange.getResponseBody().write(("part" + i).getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().flush();
          }
          exchange.close();
        });
    // Closes the connection after every answer, as Tomcat does after 100 requests.
    server.createContext(
        "/closing",
        exchange -> {
          clientPorts.add(exchange.getRemoteAddress().getPort());
          answer(exchange, 200, "bye", true);
        });
    server.createContext(
        "/stalled",
        exchange -> {
          try {
            releaseStalled.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          answer(exchange, 200, "late", false);
        });
    server.start();
    address =
        new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getAddress().getPort());
  }

  private static int number(HttpExchange exchange) {
    String path = exchange.getRequestURI().getPath();
    return Integer.parseInt(path.substring(path.lastIndexOf('/') + 1));
  }

  private void answer(HttpExchange exchange, int status, String body, boolean close)
      throws IOException {
    served.incrementAndGet();
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    if (close) {
      exchange.getResponseHeaders().set("Connection", "close");
    }
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  @AfterEach
  void stopServer() {
    releaseStalled.countDown();
    server.stop(0);
    handlers.shutdownNow();
  }

  @Test
  void everyRequestGetsItsOwnStatusAtTheOfferedRate() throws Exception {
    SentinelComparison.Load load =
        Http1OpenLoop.run(address, i -> "/fixed/" + i, 500, 2, 8, TimeUnit.SECONDS.toNanos(10));

    assertThat(load.status).hasSize(1000);
    for (int i = 0; i < load.status.length; i++) {
      assertThat(load.status[i]).as("request %d", i).isEqualTo(i % 2 == 0 ? 200 : 429);
      assertThat(load.latencyNanos[i]).isPositive();
    }
    assertThat(load.completed.get()).isEqualTo(1000);
    assertThat(served.get()).isEqualTo(1000);
    // Offered on schedule: the last request went out about 2 s after the first was due.
    assertThat(load.sendNanos)
        .isBetween(TimeUnit.MILLISECONDS.toNanos(1900), TimeUnit.SECONDS.toNanos(20));
    assertThat(load.dueOffsetNanos[999]).isEqualTo(999L * 2_000_000);
  }

  @Test
  void readsChunkedAnswers() throws Exception {
    SentinelComparison.Load load =
        Http1OpenLoop.run(address, i -> "/chunked", 200, 1, 4, TimeUnit.SECONDS.toNanos(10));

    assertThat(load.status).containsOnly(200);
    assertThat(served.get()).isEqualTo(200);
  }

  @Test
  void replacesAConnectionTheServerCloses() throws Exception {
    SentinelComparison.Load load =
        Http1OpenLoop.run(address, i -> "/closing", 200, 1, 4, TimeUnit.SECONDS.toNanos(10));

    assertThat(load.status).containsOnly(200);
    // One connection per request: each answer closed the one it came on.
    assertThat(clientPorts).hasSizeGreaterThan(150);
  }

  @Test
  void aRequestNotAnsweredByTheDeadlineIsATransportError() throws Exception {
    SentinelComparison.Load load =
        Http1OpenLoop.run(address, i -> "/stalled", 20, 1, 4, TimeUnit.MILLISECONDS.toNanos(300));

    // Four went out on the four connections and were never answered; the rest waited for one.
    assertThat(load.status).containsOnly(-1);
    assertThat(load.completed.get()).isZero();
  }

  @Test
  void findsWhereAResponseEnds() {
    assertThat(complete("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel")).isZero();
    assertThat(complete("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")).isEqualTo(200);
    assertThat(complete("HTTP/1.1 429 Too Many\r\ncontent-length: 0\r\n\r\n")).isEqualTo(429);
    assertThat(complete("HTTP/1.1 200 OK\r\nContent-Len")).isZero();
    String chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    assertThat(complete(chunked + "5\r\nhello\r\n")).isZero();
    assertThat(complete(chunked + "5\r\nhello\r\n3;ext=1\r\nabc\r\n0\r\n")).isZero();
    assertThat(complete(chunked + "5\r\nhello\r\n3;ext=1\r\nabc\r\n0\r\n\r\n")).isEqualTo(200);
    assertThat(complete(chunked + "5\r\nhello\r\n0\r\nX-Trailer: 1\r\n\r\n")).isEqualTo(200);
    assertThat(complete("HTTP/1.1 204 No Content\r\n\r\n")).isEqualTo(204);
  }

  private static int complete(String response) {
    byte[] bytes = Arrays.copyOf(response.getBytes(StandardCharsets.ISO_8859_1), 4096);
    return Http1OpenLoop.Responses.complete(bytes, response.length());
  }
}
