package io.sluice.e2e;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A stand-in for the config center's HTTP v1 API (GET/POST/DELETE {@code /nacos/v1/cs/configs} and
 * the long-poll listener), with the semantics documented for Nacos: 404 "config data not exist",
 * md5 of the UTF-8 content, a listener that answers at once when a watched md5 differs and
 * otherwise holds for the requested timeout minus 500 ms. Used only while sluice-server does not
 * serve that API; see {@link ConfigCenter#start}.
 */
final class StandInConfigCenter extends ConfigCenter {
  private final Map<String, String> configs = new HashMap<>(); // "dataId+group+tenant" -> content
  private int port;
  private HttpServer server;
  private ExecutorService executor;

  static StandInConfigCenter start(int port) throws IOException {
    StandInConfigCenter center = new StandInConfigCenter();
    center.port = port;
    center.restart();
    return center;
  }

  @Override
  String address() {
    return "127.0.0.1:" + port;
  }

  @Override
  void ensureRunning() throws Exception {
    if (server == null) {
      restart();
    }
  }

  @Override
  String kind() {
    return "stand-in";
  }

  @Override
  synchronized void restart() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
    executor = Executors.newCachedThreadPool();
    server.setExecutor(executor);
    server.createContext("/nacos/v1/cs/configs/listener", this::listen);
    server.createContext("/nacos/v1/cs/configs", this::configs);
    server.start();
    port = server.getAddress().getPort();
  }

  @Override
  void stop() {
    HttpServer s;
    synchronized (this) {
      s = server;
      server = null;
      notifyAll();
    }
    if (s != null) {
      s.stop(0);
      executor.shutdownNow();
    }
  }

  @Override
  public void close() {
    stop();
  }

  private static String key(String dataId, String group, String tenant) {
    return dataId + "+" + group + "+" + (tenant == null || tenant.equals("public") ? "" : tenant);
  }

  private static String md5(String content) {
    if (content == null) {
      return "";
    }
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("MD5").digest(content.getBytes(StandardCharsets.UTF_8)));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private void configs(HttpExchange exchange) throws IOException {
    String method = exchange.getRequestMethod();
    Map<String, String> params = parse(exchange.getRequestURI().getRawQuery());
    if (method.equals("POST")) {
      params.putAll(
          parse(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
    }
    String key = key(params.get("dataId"), params.get("group"), params.get("tenant"));
    switch (method) {
      case "GET" -> {
        String content;
        synchronized (this) {
          content = configs.get(key);
        }
        if (content == null) {
          respond(exchange, 404, "config data not exist");
        } else {
          exchange.getResponseHeaders().add("Content-MD5", md5(content));
          respond(exchange, 200, content);
        }
      }
      case "POST" -> {
        synchronized (this) {
          configs.put(key, params.get("content"));
          notifyAll();
        }
        respond(exchange, 200, "true");
      }
      case "DELETE" -> {
        synchronized (this) {
          configs.remove(key);
          notifyAll();
        }
        respond(exchange, 200, "true");
      }
      default -> respond(exchange, 405, "");
    }
  }

  private void listen(HttpExchange exchange) throws IOException {
    Map<String, String> form =
        parse(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
    String timeoutHeader = exchange.getRequestHeaders().getFirst("Long-Pulling-Timeout");
    long timeout = timeoutHeader == null ? 0 : Long.parseLong(timeoutHeader);
    Map<String, String[]> watched = new LinkedHashMap<>();
    for (String record : form.getOrDefault("Listening-Configs", "").split("\u0001")) {
      if (!record.isEmpty()) {
        String[] parts = record.split("\u0002", -1);
        watched.put(key(parts[0], parts[1], parts.length > 3 ? parts[3] : ""), parts);
      }
    }
    long deadline = System.currentTimeMillis() + Math.max(0, Math.max(10_000, timeout) - 500);
    StringBuilder changed = new StringBuilder();
    synchronized (this) {
      while (server != null) {
        for (Map.Entry<String, String[]> entry : watched.entrySet()) {
          String[] parts = entry.getValue();
          if (!md5(configs.get(entry.getKey())).equals(parts[2])) {
            changed.append(parts[0]).append('\u0002').append(parts[1]);
            if (parts.length > 3 && !parts[3].isEmpty()) {
              changed.append('\u0002').append(parts[3]);
            }
            changed.append('\u0001');
          }
        }
        long left = deadline - System.currentTimeMillis();
        if (changed.length() > 0 || left <= 0) {
          break;
        }
        try {
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
    if (form == null || form.isEmpty()) {
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
}
