package io.sluice.agent.rules;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP server speaking the two calls of Nacos's v1 config API the watcher uses, with the
 * semantics documented for Nacos (404 for a missing config, Content-MD5, a listener that answers at
 * once when an md5 differs and otherwise holds until a change or the timeout). For unit tests of
 * the watcher; the end-to-end tests use sluice-server itself.
 */
final class FakeConfigCenter implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private final Map<ConfigKey, String> configs = new HashMap<>();
  final AtomicInteger gets = new AtomicInteger();
  final AtomicInteger listens = new AtomicInteger();
  private volatile int failWith;
  final AtomicInteger logins = new AtomicInteger();
  private volatile String username;
  private volatile String password;
  private volatile String token;
  private volatile long tokenTtlSeconds;

  /** Counted down when a long-poll is held, waiting for a change: a test publishes after it. */
  final CountDownLatch holding = new CountDownLatch(1);

  FakeConfigCenter() throws IOException {
    this(0);
  }

  /** A server on {@code port} (0: any free one). */
  FakeConfigCenter(int port) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 16);
    server.createContext(ConfigCenterClient.LISTENER_PATH, this::listen);
    server.createContext(ConfigCenterClient.CONFIGS_PATH, this::get);
    server.createContext(ServerLogin.LOGIN_PATH, this::login);
    server.setExecutor(executor);
    server.start();
  }

  String address() {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  synchronized void publish(ConfigKey key, String content) {
    if (content == null) {
      configs.remove(key);
    } else {
      configs.put(key, content);
    }
    notifyAll();
  }

  private synchronized String md5Of(ConfigKey key) {
    return ConfigCenterClient.md5(configs.get(key));
  }

  /**
   * From now on, answers config calls only with a token from logging in as {@code username} with
   * {@code password} (403 otherwise), as Nacos does with auth on; tokens last {@code ttlSeconds}.
   */
  void requireLogin(String username, String password, long ttlSeconds) {
    this.username = username;
    this.password = password;
    this.tokenTtlSeconds = ttlSeconds;
  }

  /** Invalidates the token handed out so far, as a restart with a new key would. */
  void revokeTokens() {
    token = null;
  }

  private void login(HttpExchange exchange) throws IOException {
    logins.incrementAndGet();
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    Map<String, String> form = parse(body);
    if (username == null) {
      respond(exchange, 200, "{\"accessToken\":\"\",\"tokenTtl\":18000}");
      return;
    }
    if (!username.equals(form.get("username")) || !password.equals(form.get("password"))) {
      respond(exchange, 401, "unknown user or wrong password");
      return;
    }
    token = "token-" + logins.get();
    respond(
        exchange,
        200,
        "{\"accessToken\":\""
            + token
            + "\",\"tokenTtl\":"
            + tokenTtlSeconds
            + ",\"globalAdmin\":true}");
  }

  /** False, having answered 403, when auth is on and the call carries no valid token. */
  private boolean authorized(HttpExchange exchange) throws IOException {
    if (username == null) {
      return true;
    }
    String given = parse(exchange.getRequestURI().getRawQuery()).get("accessToken");
    if (given != null && given.equals(token)) {
      return true;
    }
    respond(exchange, 403, "user not found!");
    return false;
  }

  /** From now on, answers every call with {@code status} (0: serve normally again). */
  void failWith(int status) {
    failWith = status;
  }

  private void get(HttpExchange exchange) throws IOException {
    gets.incrementAndGet();
    if (failWith != 0) {
      respond(exchange, failWith, "failing on purpose");
      return;
    }
    if (!authorized(exchange)) {
      return;
    }
    Map<String, String> query = parse(exchange.getRequestURI().getRawQuery());
    ConfigKey key = new ConfigKey(query.get("dataId"), query.get("group"), query.get("tenant"));
    String content;
    synchronized (this) {
      content = configs.get(key);
    }
    if (content == null) {
      respond(exchange, 404, "config data not exist");
      return;
    }
    exchange.getResponseHeaders().add("Content-MD5", ConfigCenterClient.md5(content));
    respond(exchange, 200, content);
  }

  private void listen(HttpExchange exchange) throws IOException {
    listens.incrementAndGet();
    if (failWith != 0) {
      respond(exchange, failWith, "failing on purpose");
      return;
    }
    if (!authorized(exchange)) {
      return;
    }
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String listening = parse(body).get("Listening-Configs");
    long timeout = Long.parseLong(exchange.getRequestHeaders().getFirst("Long-Pulling-Timeout"));
    Map<ConfigKey, String> watched = new LinkedHashMap<>();
    for (String record : listening.split("\u0001")) {
      if (record.isEmpty()) {
        continue;
      }
      String[] parts = record.split("\u0002", -1);
      watched.put(new ConfigKey(parts[0], parts[1], parts.length > 3 ? parts[3] : ""), parts[2]);
    }
    long deadline = System.currentTimeMillis() + Math.max(500, timeout - 500);
    StringBuilder changed = new StringBuilder();
    synchronized (this) {
      while (true) {
        for (Map.Entry<ConfigKey, String> entry : watched.entrySet()) {
          if (!md5Of(entry.getKey()).equals(entry.getValue())) {
            ConfigKey key = entry.getKey();
            changed.append(key.dataId()).append('\u0002').append(key.group());
            if (!key.tenant().isEmpty()) {
              changed.append('\u0002').append(key.tenant());
            }
            changed.append('\u0001');
          }
        }
        long left = deadline - System.currentTimeMillis();
        if (changed.length() > 0 || left <= 0) {
          break;
        }
        try {
          holding.countDown();
          wait(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    respond(exchange, 200, URLEncoder.encode(changed.toString(), StandardCharsets.UTF_8));
  }

  private static Map<String, String> parse(String form) {
    Map<String, String> result = new HashMap<>();
    if (form == null) {
      return result;
    }
    for (String pair : form.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        result.put(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return result;
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      notifyAll();
    }
    server.stop(0);
    executor.shutdownNow();
  }
}
