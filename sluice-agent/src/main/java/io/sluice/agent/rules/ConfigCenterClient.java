package io.sluice.agent.rules;

import io.sluice.agent.bootstrap.OutboundCall;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The two calls of Nacos's HTTP v1 config API the rule watcher needs: read one config, and hold a
 * long poll until one of the watched configs changes. Speaks to one server at a time; the watcher
 * moves to the next address when a call fails. Works against sluice-server and stock Nacos alike.
 *
 * <p>Against a server with auth on, each call carries an {@code accessToken}: the configured one,
 * or one from logging in with the configured user name and password, renewed when 90% of its
 * lifetime has passed or when the server refuses it. Used by the watcher's thread only.
 */
final class ConfigCenterClient {
  static final String CONFIGS_PATH = "/nacos/v1/cs/configs";
  static final String LISTENER_PATH = "/nacos/v1/cs/configs/listener";

  private final HttpClient http;
  private final List<String> servers;
  private final Duration connectAndReadTimeout;
  private final ServerLogin login;
  private int current;

  /**
   * @param servers {@code host:port} or {@code http://host:port} addresses, tried in turn
   */
  ConfigCenterClient(HttpClient http, List<String> servers, Duration connectAndReadTimeout) {
    this(http, servers, connectAndReadTimeout, ConfigCredentials.NONE);
  }

  ConfigCenterClient(
      HttpClient http,
      List<String> servers,
      Duration connectAndReadTimeout,
      ConfigCredentials credentials) {
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("no config center address");
    }
    this.http = http;
    this.servers = List.copyOf(servers);
    this.connectAndReadTimeout = connectAndReadTimeout;
    this.login = new ServerLogin(http, credentials, connectAndReadTimeout);
  }

  /** The document as stored, or a missing result (404); throws if the server did not answer. */
  ConfigDocument get(ConfigKey key) throws IOException, InterruptedException {
    String query =
        "dataId="
            + encode(key.dataId())
            + "&group="
            + encode(key.group())
            + (key.tenant().isEmpty() ? "" : "&tenant=" + encode(key.tenant()))
            + tokenParameter("&");
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(base() + CONFIGS_PATH + "?" + query))
            .timeout(connectAndReadTimeout)
            .GET()
            .build();
    HttpResponse<String> response = send(request);
    if (response.statusCode() == 404) {
      return ConfigDocument.missing(key);
    }
    if (response.statusCode() != 200) {
      throw failure("GET " + key, response);
    }
    String content = response.body();
    return new ConfigDocument(key, content, md5(content));
  }

  /**
   * Holds until one of the watched configs differs from the given md5 or the hold times out, and
   * returns the changed keys (empty on timeout). {@code md5ByKey} holds "" for missing configs.
   */
  List<ConfigKey> listen(Map<ConfigKey, String> md5ByKey, Duration hold)
      throws IOException, InterruptedException {
    String form = "Listening-Configs=" + encode(ListeningConfigs.encode(md5ByKey));
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(base() + LISTENER_PATH + tokenParameter("?")))
            .timeout(hold.plus(connectAndReadTimeout))
            .header("Content-Type", "application/x-www-form-urlencoded; charset=UTF-8")
            .header("Long-Pulling-Timeout", Long.toString(hold.toMillis()))
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build();
    HttpResponse<String> response = send(request);
    if (response.statusCode() != 200) {
      throw failure("listener", response);
    }
    return ListeningConfigs.decodeChanged(response.body());
  }

  /**
   * Whether the current server accepts a TCP connection within {@code timeout}: a cheap probe
   * (nothing is sent) to notice a server that comes back while the watcher backs off.
   */
  boolean accepts(Duration timeout) {
    URI uri = URI.create(base());
    int port = uri.getPort() >= 0 ? uri.getPort() : ("https".equals(uri.getScheme()) ? 443 : 80);
    try (java.net.Socket socket = new java.net.Socket()) {
      socket.connect(new java.net.InetSocketAddress(uri.getHost(), port), (int) timeout.toMillis());
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** Moves to the next server address, after a failed call. */
  void failOver() {
    current = (current + 1) % servers.size();
    login.forget();
  }

  /** {@code accessToken=...} after {@code separator}, or "" when there is no token to send. */
  private String tokenParameter(String separator) throws IOException, InterruptedException {
    String token = login.token(base());
    return token == null ? "" : separator + "accessToken=" + encode(token);
  }

  String currentServer() {
    return servers.get(current);
  }

  private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
    // The agent's own call: marked as nested, so the agent's java.net.http instrumentation
    // neither governs it nor lists it as the application's traffic.
    OutboundCall.begin();
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } finally {
      OutboundCall.end();
    }
  }

  private String base() {
    String server = servers.get(current).trim();
    return server.startsWith("http://") || server.startsWith("https://")
        ? stripTrailingSlash(server)
        : "http://" + stripTrailingSlash(server);
  }

  private static String stripTrailingSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private IOException failure(String call, HttpResponse<String> response) {
    if (response.statusCode() == 401 || response.statusCode() == 403) {
      login.forget(); // log in again next time: the token may have expired or been revoked
    }
    return failure(call, response, login.credentials(), false);
  }

  /**
   * The failure of a call the server answered with an error: {@link AccessDeniedException} for 401
   * and 403, with the server's reason and the settings to check; {@link ServerAnsweredException}
   * for a 5xx; else a plain {@link IOException}.
   */
  static IOException failure(
      String call,
      HttpResponse<String> response,
      ConfigCredentials credentials,
      boolean loggingIn) {
    int status = response.statusCode();
    String message = call + " answered " + status;
    if (status == 401 || status == 403) {
      String body = response.body() == null ? "" : response.body().strip();
      return new AccessDeniedException(
          message
              + (body.isEmpty() ? "" : " (" + abbreviate(body) + ")")
              + (loggingIn ? "" : " with " + credentials.describe())
              + "; check sluice.username and sluice.password (or sluice.access.token)");
    }
    return status >= 500 ? new ServerAnsweredException(message) : new IOException(message);
  }

  private static String abbreviate(String s) {
    return s.length() <= 200 ? s : s.substring(0, 200) + "...";
  }

  /** The server refused the agent's credentials (401, 403): retrying elsewhere will not help. */
  static final class AccessDeniedException extends IOException {
    private static final long serialVersionUID = 1L;

    AccessDeniedException(String message) {
      super(message);
    }
  }

  /** The server answered with a 5xx status: it is up, but failing (e.g. still starting). */
  static final class ServerAnsweredException extends IOException {
    private static final long serialVersionUID = 1L;

    ServerAnsweredException(String message) {
      super(message);
    }
  }

  /** Nacos's md5: lowercase hex of the UTF-8 bytes; "" stands for a missing config. */
  static String md5(String content) {
    if (content == null) {
      return "";
    }
    try {
      MessageDigest digest = MessageDigest.getInstance("MD5");
      return HexFormat.of().formatHex(digest.digest(content.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 is required of every JVM", e);
    }
  }
}
