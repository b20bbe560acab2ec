package io.sluice.agent.reporting;

import io.sluice.agent.bootstrap.OutboundCall;
import io.sluice.agent.rules.ConfigCredentials;
import io.sluice.agent.rules.ServerLogin;
import java.io.IOException;
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
 * <p>The request runs on the calling thread over a {@link ReportConnection} kept open between
 * reports: one write of the report's bytes, one read of the answer. Not {@code
 * java.net.http.HttpClient}: its asynchronous pipeline hands each exchange across its selector and
 * pool threads, and once a second, code that never gets hot, that cost the demo chain's services
 * 0.8–1.7 CPU points of a 2-core quota at 500 requests/s (30–70 µs per request served), against the
 * issue's 1 µs. Nor {@code HttpURLConnection}: its URL, header and keep-alive cache handling,
 * interpreted, was most of a report's cost once the seconds were written as bytes.
 */
public final class TrafficSender {
  public static final String PATH = "/nacos/v1/sluice/traffic";
  static final Duration TIMEOUT = Duration.ofSeconds(2);

  private final List<String> servers;
  private final ServerLogin login;
  private int current;
  private ReportConnection connection; // to servers.get(current), or null

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

  /**
   * Sends the form body in {@code body}'s first {@code length} bytes (a {@code report} field, see
   * {@link FormJson}); null when the server took it, else why not.
   */
  String send(byte[] body, int length) {
    String failure = null;
    for (int attempt = 0; attempt < servers.size(); attempt++) {
      String server = servers.get(current);
      // The agent's own call: marked as nested, so the agent's HttpURLConnection instrumentation
      // neither governs it nor lists it as the application's traffic.
      OutboundCall.begin();
      try {
        String base = base(server);
        String token = login.token(base);
        String path =
            token == null
                ? PATH
                : PATH + "?accessToken=" + URLEncoder.encode(token, StandardCharsets.UTF_8);
        if (connection == null) {
          connection = new ReportConnection(base, (int) TIMEOUT.toMillis());
        }
        ReportConnection.Answer answer = connection.post(path, body, length);
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
      if (connection != null) {
        connection.close();
        connection = null;
      }
      current = (current + 1) % servers.size();
    }
    return failure;
  }

  private static String base(String server) {
    String s = server.trim();
    if (s.endsWith("/")) {
      s = s.substring(0, s.length() - 1);
    }
    return s.startsWith("http://") || s.startsWith("https://") ? s : "http://" + s;
  }
}
