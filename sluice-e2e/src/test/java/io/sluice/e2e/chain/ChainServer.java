package io.sluice.e2e.chain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.e2e.NetworkNamespace;
import io.sluice.server.testing.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The chain's sluice-server, in a JVM of its own in the chain's network (this JVM's loopback, or
 * the chain's {@link NetworkNamespace}), and the HTTP API calls made to it as an operator or a
 * dashboard would: publish and remove config documents, list a service's instances. Its first start
 * takes free ports ({@link ServerProcess#startOnFreePorts}: tried again on others while one was
 * taken meanwhile); it keeps them and its data directory across {@link #stop} and {@link #start},
 * so the applications find it again after a restart.
 *
 * <p>In a namespace it listens on every address the namespace has, without auth as on loopback
 * (only this machine reaches the namespace): the applications reach it on the namespace's loopback,
 * this JVM at the namespace's address.
 */
final class ChainServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] JVM_OPTIONS = {
    "-Xms32m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"
  };

  private final Path dataDir;
  private final int httpPort;
  private final NetworkNamespace namespace;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private ServerProcess server;

  private ChainServer(Path dataDir, NetworkNamespace namespace, ServerProcess started) {
    this.dataDir = dataDir;
    this.namespace = namespace;
    this.server = started;
    this.httpPort = started.httpPort();
  }

  /** Starts a server in {@code namespace}, or on this JVM's loopback when it is null. */
  static ChainServer start(Path dataDir, NetworkNamespace namespace) throws Exception {
    ServerProcess started =
        ServerProcess.startOnFreePorts(
            command(namespace), dataDir, arguments(namespace), JVM_OPTIONS);
    return new ChainServer(dataDir, namespace, started);
  }

  /** Starts again on the same port and data directory and waits until it says it is ready. */
  synchronized void start() throws IOException, InterruptedException {
    if (server != null) {
      return;
    }
    server =
        ServerProcess.start(
            command(namespace), httpPort, dataDir, arguments(namespace), JVM_OPTIONS);
  }

  /** What runs {@code java}: nothing, or the namespace's {@code ip netns exec}. */
  private static List<String> command(NetworkNamespace namespace) {
    return namespace == null ? List.of() : namespace.commandPrefix();
  }

  /**
   * In a namespace, on every address it has, without auth as on loopback (only this machine reaches
   * the namespace).
   */
  private static List<String> arguments(NetworkNamespace namespace) {
    return namespace == null ? List.of() : List.of("--bind", "0.0.0.0", "--insecure-no-auth");
  }

  /** Stops serving (SIGTERM): applications lose their connections and retry. */
  synchronized void stop() throws InterruptedException {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  /** Kills it (SIGKILL), for a shutdown hook. */
  synchronized void kill() throws InterruptedException {
    if (server != null) {
      server.kill();
      server = null;
    }
  }

  /**
   * {@code 127.0.0.1:port} of the HTTP API as the applications reach it (the namespace's loopback
   * when the chain has one); the Nacos clients derive gRPC as port + 1000.
   */
  String address() {
    return "127.0.0.1:" + httpPort;
  }

  void publish(String group, String dataId, String content)
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
        send(
            HttpRequest.newBuilder(api("/nacos/v1/cs/configs"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)));
    if (response.statusCode() != 200 || !response.body().trim().equals("true")) {
      throw new IOException(
          "publish " + group + "/" + dataId + ": " + response.statusCode() + " " + response.body());
    }
  }

  void remove(String group, String dataId) throws IOException, InterruptedException {
    HttpResponse<String> response =
        send(
            HttpRequest.newBuilder(
                    api(
                        "/nacos/v1/cs/configs?dataId="
                            + encode(dataId)
                            + "&group="
                            + encode(group)))
                .DELETE());
    if (response.statusCode() != 200) {
      throw new IOException(
          "remove " + group + "/" + dataId + ": " + response.statusCode() + " " + response.body());
    }
  }

  /** The instances of {@code service} in {@code group} (public namespace), healthy or not. */
  List<RegisteredInstance> instances(String service, String group)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        send(
            HttpRequest.newBuilder(
                    api(
                        "/nacos/v1/ns/instance/list?serviceName="
                            + encode(service)
                            + "&groupName="
                            + encode(group)))
                .GET());
    if (response.statusCode() != 200) {
      throw new IOException(
          "instances of " + service + ": " + response.statusCode() + " " + response.body());
    }
    List<RegisteredInstance> instances = new ArrayList<>();
    for (JsonNode host : JSON.readTree(response.body()).path("hosts")) {
      Map<String, String> metadata = new LinkedHashMap<>();
      host.path("metadata")
          .fields()
          .forEachRemaining(e -> metadata.put(e.getKey(), e.getValue().asText()));
      instances.add(
          new RegisteredInstance(
              host.path("ip").asText(),
              host.path("port").asInt(),
              host.path("healthy").asBoolean(),
              Map.copyOf(metadata)));
    }
    return instances;
  }

  /**
   * Sends a request, retrying briefly while the server answers 503: a server that was just
   * (re)started is ready before its replicator has replayed the log.
   */
  private HttpResponse<String> send(HttpRequest.Builder request)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      HttpResponse<String> response =
          http.send(
              request.timeout(Duration.ofSeconds(10)).build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 503 || System.nanoTime() > deadline) {
        return response;
      }
      Thread.sleep(200);
    }
  }

  /** The HTTP API as this JVM reaches it. */
  private URI api(String pathAndQuery) {
    String host = namespace == null ? "127.0.0.1" : namespace.address();
    return URI.create("http://" + host + ":" + httpPort + pathAndQuery);
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
