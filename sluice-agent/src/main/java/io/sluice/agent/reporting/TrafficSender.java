package io.sluice.agent.reporting;

import io.sluice.agent.rules.ConfigCredentials;
import io.sluice.agent.rules.ServerLogin;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Posts a report to the server's {@code /nacos/v1/sluice/traffic}, trying the configured addresses
 * in turn from the one that last answered. Bounded in time: a connect and a whole request each get
 * {@link #TIMEOUT}, so a server that does not answer holds the reporting thread at most that long,
 * never an application thread. Against a server with auth on, each report carries the token of the
 * agent's own credentials (the ones its rule watcher uses, with a login of its own).
 */
public final class TrafficSender {
  public static final String PATH = "/nacos/v1/sluice/traffic";
  static final Duration TIMEOUT = Duration.ofSeconds(2);

  private final HttpClient http;
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
    // HTTP/1.1: one report at a time needs no multiplexing, and no upgrade round trip.
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(TIMEOUT)
            .build();
    this.login = new ServerLogin(http, credentials, TIMEOUT);
  }

  /** Sends {@code report}; null when the server took it, else why not. */
  String send(String report) {
    String failure = null;
    for (int attempt = 0; attempt < servers.size(); attempt++) {
      String server = servers.get(current);
      try {
        String token = login.token(base(server));
        String query =
            token == null ? "" : "?accessToken=" + URLEncoder.encode(token, StandardCharsets.UTF_8);
        HttpResponse<String> response =
            http.send(
                HttpRequest.newBuilder(URI.create(base(server) + PATH + query))
                    .timeout(TIMEOUT)
                    .header("Content-Type", "application/x-www-form-urlencoded; charset=UTF-8")
                    .POST(HttpRequest.BodyPublishers.ofString("report=" + formValue(report)))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return null;
        }
        String body = response.body();
        failure =
            server
                + " answered "
                + response.statusCode()
                + (body == null || body.isBlank()
                    ? ""
                    : ": " + body.substring(0, Math.min(200, body.length())).trim());
        if (response.statusCode() == 401 || response.statusCode() == 403) {
          login.forget(); // the token expired or was revoked: log in again next time
        }
        if (response.statusCode() < 500) {
          return failure; // the server refused the report itself: another would too
        }
      } catch (IOException e) {
        failure = server + ": " + e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted";
      }
      current = (current + 1) % servers.size();
    }
    return failure;
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
