package io.sluice.agent.reporting;

import io.sluice.agent.bootstrap.OutboundCall;
import io.sluice.agent.rules.ConfigCredentials;
import io.sluice.agent.rules.ServerLogin;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Posts a report to the server's {@code /nacos/v1/sluice/traffic}, trying the configured addresses
 * in turn from the one that last answered. Bounded in time: a connect and a read each get {@link
 * #TIMEOUT}, so a server that does not answer holds the reporting thread at most that long, never
 * an application thread. Against a server with auth on, each report carries the token of the
 * agent's own credentials (the ones its rule watcher uses, with a login of its own).
 *
 * <p>The request runs on the calling thread over {@link HttpURLConnection}, whose connection stays
 * open between reports. Not {@code java.net.http.HttpClient}: its asynchronous pipeline hands each
 * exchange across its selector and pool threads, and once a second, code that never gets hot, that
 * cost the demo chain's services 0.8–1.7 CPU points of a 2-core quota at 500 requests/s (30–70 µs
 * per request served), against the 1 µs.
 */
public final class TrafficSender {
  public static final String PATH = "/nacos/v1/sluice/traffic";
  static final Duration TIMEOUT = Duration.ofSeconds(2);

  /** The most of an answer read; the server's answers are a few bytes. */
  static final int MAX_ANSWER_BYTES = 4_096;

  private final List<String> servers;
  private final ServerLogin login;
  private int current;

  /**
   * @param servers {@code host:port} or {@code http://host:port} addresses
   * @param credentials what the agent logs in with when the server has auth on
   */
  public TrafficSender(List<String> servers, ConfigCredentials credentials) {
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("no server address");
    }
    this.servers = List.copyOf(servers);
    // The login, rare (a token lasts hours), keeps the watcher's client; reports do not use it.
    HttpClient loginClient =
        credentials.logsIn()
            ? HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(TIMEOUT)
                .build()
            : null;
    this.login = new ServerLogin(loginClient, credentials, TIMEOUT);
  }

  /** Sends {@code report}; null when the server took it, else why not. */
  String send(String report) {
    byte[] body = ("report=" + formValue(report)).getBytes(StandardCharsets.UTF_8);
    String failure = null;
    for (int attempt = 0; attempt < servers.size(); attempt++) {
      String server = servers.get(current);
      // The agent's own call: marked as nested, so the agent's HttpURLConnection instrumentation
      // neither governs it nor lists it as the application's traffic.
      OutboundCall.begin();
      try {
        String token = login.token(base(server));
        String query =
            token == null ? "" : "?accessToken=" + URLEncoder.encode(token, StandardCharsets.UTF_8);
        Answer answer = post(base(server) + PATH + query, body);
        if (answer.status() == 200) {
          return null;
        }
        failure =
            server
                + " answered "
                + answer.status()
                + (answer.text().isEmpty() ? "" : ": " + answer.text());
        if (answer.status() == 401 || answer.status() == 403) {
          login.forget(); // the token expired or was revoked: log in again next time
        }
        if (answer.status() < 500) {
          return failure; // the server refused the report itself: another would too
        }
      } catch (IOException | RuntimeException e) {
        failure = server + ": " + e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted";
      } finally {
        OutboundCall.end();
      }
      current = (current + 1) % servers.size();
    }
    return failure;
  }

  /** A server's status, and the start of its answer when it refused. */
  private record Answer(int status, String text) {}

  private static Answer post(String url, byte[] body) throws IOException {
    HttpURLConnection connection =
        (HttpURLConnection) URI.create(url).toURL().openConnection(Proxy.NO_PROXY);
    int timeout = (int) TIMEOUT.toMillis();
    connection.setConnectTimeout(timeout);
    connection.setReadTimeout(timeout);
    connection.setUseCaches(false);
    connection.setRequestMethod("POST");
    connection.setDoOutput(true);
    connection.setFixedLengthStreamingMode(body.length);
    connection.setRequestProperty(
        "Content-Type", "application/x-www-form-urlencoded; charset=UTF-8");
    try (OutputStream out = connection.getOutputStream()) {
      out.write(body);
    }
    int status = connection.getResponseCode();
    InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
    if (in == null) {
      return new Answer(status, "");
    }
    byte[] answer = new byte[MAX_ANSWER_BYTES];
    int n = 0;
    try (in) {
      for (int r; n < answer.length && (r = in.read(answer, n, answer.length - n)) > 0; ) {
        n += r;
      }
      if (n == answer.length && in.read() >= 0) {
        connection.disconnect(); // not an answer of ours: do not drain it to keep the connection
      }
    }
    return new Answer(
        status,
        status == 200
            ? ""
            : new String(answer, 0, Math.min(n, 200), StandardCharsets.UTF_8).trim());
  }

  /**
   * {@code value} form-encoded with only what the form format needs escaped ({@code % & + =},
   * spaces, controls and non-ASCII): the JSON stays almost as it is, so the body is about half the
   * size of a fully escaped one and the server decodes it mostly by copying.
   */
  static String formValue(String value) {
    StringBuilder out = new StringBuilder(value.length() + 64);
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == ' ') {
        out.append('+');
      } else if (c == '%' || c == '&' || c == '+' || c == '=' || c < 0x20 || c == 0x7f) {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
      } else if (c < 0x80) {
        out.append(c);
      } else {
        int end = Character.isHighSurrogate(c) && i + 1 < value.length() ? i + 2 : i + 1;
        for (byte b : value.substring(i, end).getBytes(StandardCharsets.UTF_8)) {
          out.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
        }
        i = end - 1;
      }
    }
    return out.toString();
  }

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private static String base(String server) {
    String s = server.trim();
    if (s.endsWith("/")) {
      s = s.substring(0, s.length() - 1);
    }
    return s.startsWith("http://") || s.startsWith("https://") ? s : "http://" + s;
  }
}
