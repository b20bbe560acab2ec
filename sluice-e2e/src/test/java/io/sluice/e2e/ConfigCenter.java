package io.sluice.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The config center the tests publish rules to, over Nacos's HTTP v1 config API (the path an
 * operator or a dashboard uses), and that the agent long-polls: sluice-server itself, started in
 * this JVM by {@link #start}.
 */
abstract class ConfigCenter implements AutoCloseable {
  static final String GROUP = "SENTINEL_GROUP";

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  static ConfigCenter start(java.nio.file.Path dataDir) throws Exception {
    ConfigCenter server = SluiceServerConfigCenter.start(dataDir);
    if (!server.servesConfigApi()) {
      server.close();
      throw new IllegalStateException("sluice-server does not serve /nacos/v1/cs/configs");
    }
    return server;
  }

  /** {@code host:port} of the HTTP API, as given to the agent. */
  abstract String address();

  /** Stops serving (the agent then sees connection failures); {@link #restart} serves again. */
  abstract void stop() throws Exception;

  /** Serves again on the same address, with the same data. */
  abstract void restart() throws Exception;

  /** Serves again if {@link #stop stopped}. */
  abstract void ensureRunning() throws Exception;

  abstract String kind();

  void publish(String dataId, String content) throws IOException, InterruptedException {
    publish(GROUP, dataId, content);
  }

  /** Publishes a document of another group (Sluice's own documents are in group SLUICE). */
  void publish(String group, String dataId, String content)
      throws IOException, InterruptedException {
    // A restarted sluice-server reports ready before its replicator has replayed its log, and
    // answers 503 meanwhile: retry that, briefly.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        publishOnce(group, dataId, content);
        return;
      } catch (StillStartingException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  private static final class StillStartingException extends IOException {
    private static final long serialVersionUID = 1L;

    StillStartingException(String message) {
      super(message);
    }
  }

  private void publishOnce(String group, String dataId, String content)
      throws IOException, InterruptedException {
    String form =
        "dataId="
            + encode(dataId)
            + "&group="
            + encode(group)
            + "&content="
            + encode(content)
            + "&type=json";
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://" + address() + "/nacos/v1/cs/configs"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() == 503) {
      throw new StillStartingException("publish " + dataId + ": 503 " + response.body());
    }
    if (response.statusCode() != 200 || !response.body().trim().equals("true")) {
      throw new IOException(
          "publish " + dataId + " failed: " + response.statusCode() + " " + response.body());
    }
  }

  void remove(String dataId) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(
                        "http://"
                            + address()
                            + "/nacos/v1/cs/configs?dataId="
                            + encode(dataId)
                            + "&group="
                            + encode(GROUP)))
                .DELETE()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("delete " + dataId + " failed: " + response.statusCode());
    }
  }

  boolean servesConfigApi() {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://"
                              + address()
                              + "/nacos/v1/cs/configs?dataId=sluice-probe&group="
                              + GROUP))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200
          || (response.statusCode() == 404 && response.body().contains("config data not exist"));
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
