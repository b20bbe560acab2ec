package io.sluice.agent.reporting;

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
 * never an application thread.
 */
public final class TrafficSender {
  public static final String PATH = "/nacos/v1/sluice/traffic";
  static final Duration TIMEOUT = Duration.ofSeconds(2);

  private final HttpClient http;
  private final List<String> servers;
  private int current;

  /**
   * @param servers {@code host:port} or {@code http://host:port} addresses
   */
  public TrafficSender(List<String> servers) {
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("no server address");
    }
    this.servers = List.copyOf(servers);
    this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  }

  /** Sends {@code report}; null when the server took it, else why not. */
  String send(String report) {
    String failure = null;
    for (int attempt = 0; attempt < servers.size(); attempt++) {
      String server = servers.get(current);
      try {
        HttpResponse<String> response =
            http.send(
                HttpRequest.newBuilder(URI.create(base(server) + PATH))
                    .timeout(TIMEOUT)
                    .header("Content-Type", "application/x-www-form-urlencoded; charset=UTF-8")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "report=" + URLEncoder.encode(report, StandardCharsets.UTF_8)))
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

  private static String base(String server) {
    String s = server.trim();
    if (s.endsWith("/")) {
      s = s.substring(0, s.length() - 1);
    }
    return s.startsWith("http://") || s.startsWith("https://") ? s : "http://" + s;
  }
}
