package io.sluice.agent.rules;

import io.sluice.agent.bootstrap.OutboundCall;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent's token for a server with auth on: the configured access token as is, or one from
 * logging in with the configured user name and password (Nacos's {@code POST
 * /nacos/v1/auth/users/login}), renewed when 90% of its lifetime has passed, when it was issued by
 * another server than the one asked, or after {@link #forget} (the server refused it). Each client
 * of the agent that calls the server (the rule watcher's, the traffic reporter's) has its own.
 *
 * <p>A login the server refuses (a wrong password, an unknown user, too many logins) is not tried
 * again for {@value #FIRST_RETRY_SECONDS} s, then twice as long each time up to {@value
 * #MAX_RETRY_SECONDS} s; until then the refusal is answered at once. Every login costs the server a
 * password hash, and logins are limited per address, so an agent with wrong credentials must not
 * ask every second, nor use up the logins of the applications beside it.
 *
 * <p>Concurrency: used by one thread only, its client's.
 */
public final class ServerLogin {
  static final String LOGIN_PATH = "/nacos/v1/auth/users/login";
  private static final Pattern ACCESS_TOKEN =
      Pattern.compile("\"accessToken\"\\s*:\\s*\"([^\"]*)\"");
  private static final Pattern TOKEN_TTL = Pattern.compile("\"tokenTtl\"\\s*:\\s*(\\d+)");
  static final long FIRST_RETRY_SECONDS = 5;
  static final long MAX_RETRY_SECONDS = 300;

  private final HttpClient http;
  private final ConfigCredentials credentials;
  private final Duration timeout;

  /** The token from the last login and the server that issued it, or null; when to renew it. */
  private String loggedInToken;

  private String loggedInAt;
  private long renewAtNanos;

  /** The last refused login, answered again until {@code retryAtNanos}; null after a success. */
  private IOException refused;

  private long retryAtNanos;
  private long retryAfterSeconds;

  /**
   * @param timeout of the login request
   */
  public ServerLogin(HttpClient http, ConfigCredentials credentials, Duration timeout) {
    this.http = http;
    this.credentials = credentials;
    this.timeout = timeout;
  }

  public ConfigCredentials credentials() {
    return credentials;
  }

  /**
   * The token to send to the server at {@code base} ({@code http://host:port}), logging in first
   * when needed; null when the agent has no credentials. A refused login fails with the server's
   * answer and a hint at the settings to check.
   */
  public String token(String base) throws IOException, InterruptedException {
    if (!credentials.logsIn()) {
      String token = credentials.accessToken();
      return token == null || token.isEmpty() ? null : token;
    }
    if (loggedInToken == null
        || !base.equals(loggedInAt)
        || System.nanoTime() - renewAtNanos >= 0) {
      if (refused != null && System.nanoTime() - retryAtNanos < 0) {
        throw refused;
      }
      logIn(base);
    }
    return loggedInToken;
  }

  /** Forgets the token, so the next call logs in again: the server refused it. */
  public void forget() {
    loggedInToken = null;
  }

  private void logIn(String base) throws IOException, InterruptedException {
    loggedInToken = null;
    String form =
        "username="
            + URLEncoder.encode(credentials.username(), StandardCharsets.UTF_8)
            + "&password="
            + URLEncoder.encode(credentials.password(), StandardCharsets.UTF_8);
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(base + LOGIN_PATH))
            .timeout(timeout)
            .header("Content-Type", "application/x-www-form-urlencoded; charset=UTF-8")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build();
    long sentAt = System.nanoTime();
    HttpResponse<String> response;
    // The agent's own call: nested, so its java.net.http instrumentation leaves it alone.
    OutboundCall.begin();
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } finally {
      OutboundCall.end();
    }
    if (response.statusCode() != 200) {
      IOException failure =
          ConfigCenterClient.failure(
              "login as " + credentials.describe(), response, credentials, true);
      if (response.statusCode() >= 400 && response.statusCode() < 500) {
        refused = failure;
        retryAfterSeconds =
            retryAfterSeconds == 0
                ? FIRST_RETRY_SECONDS
                : Math.min(MAX_RETRY_SECONDS, retryAfterSeconds * 2);
        retryAtNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(retryAfterSeconds);
      }
      throw failure;
    }
    Matcher token = ACCESS_TOKEN.matcher(response.body());
    if (!token.find()) {
      throw new IOException("login as " + credentials.describe() + " answered no accessToken");
    }
    Matcher ttl = TOKEN_TTL.matcher(response.body());
    long ttlSeconds = ttl.find() ? Long.parseLong(ttl.group(1)) : 18_000;
    loggedInToken = token.group(1);
    loggedInAt = base;
    refused = null;
    retryAfterSeconds = 0;
    renewAtNanos = sentAt + TimeUnit.SECONDS.toNanos(ttlSeconds) * 9 / 10;
  }
}
