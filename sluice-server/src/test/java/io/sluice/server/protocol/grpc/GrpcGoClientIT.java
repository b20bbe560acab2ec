package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.FreePorts;
import io.sluice.server.testing.GrpcTransportUnderTest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client on grpc-go, the stack nacos-sdk-go (every Go service's Nacos SDK) runs on: Debian's
 * grpc-go 1.33.3 sources built in GOPATH mode into {@code src/test/go/nacosgrpc}, a dumb program
 * that moves Payload bytes between its stdin/stdout and the two Nacos methods with grpc-go's own
 * headers ({@code te: trailers}, {@code user-agent: grpc-go/1.33.3}, {@code grpc-timeout}). This
 * test composes every message with the server's own {@link PayloadCodec} and checks every answer:
 * server check, bi-stream setup, subscribe, register, read back, and a push the Java side causes
 * and the Go side acknowledges on the stream. Run against the transport under test ({@link
 * GrpcTransportUnderTest}). Fails, saying what to install, when Go or grpc-go is missing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcGoClientIT {
  private static final Path GO =
      Files.isExecutable(Path.of("/usr/bin/go")) ? Path.of("/usr/bin/go") : Path.of("go");
  private static final Path GRPC_GO = Path.of("/usr/share/gocode/src/google.golang.org/grpc");
  private static final String INSTALL = "apt-get install golang-go golang-google-grpc-dev";

  @TempDir static Path dataDir;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();
  private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> pushes = new LinkedBlockingQueue<>();
  private Path binary;
  private SluiceServer server;
  private OpenApiClient api;
  private Process client;
  private Writer toClient;

  @BeforeAll
  void buildAndStart() throws Exception {
    assertThat(Files.isDirectory(GRPC_GO))
        .as("this test needs grpc-go's sources in %s: %s", GRPC_GO, INSTALL)
        .isTrue();
    Path target = Path.of("target").toAbsolutePath();
    binary = target.resolve("nacosgrpc");
    ProcessBuilder build =
        new ProcessBuilder(
                GO.toString(), "build", "-o", binary.toString(), "./src/test/go/nacosgrpc")
            .directory(Path.of("").toAbsolutePath().toFile())
            .redirectErrorStream(true);
    build.environment().put("GO111MODULE", "off");
    build.environment().put("GOPATH", "/usr/share/gocode");
    build.environment().put("GOCACHE", target.resolve("gocache").toString());
    build.environment().put("GOFLAGS", "");
    Process go;
    try {
      go = build.start();
    } catch (IOException e) {
      throw new AssertionError("this test needs Go: " + INSTALL + " (" + e.getMessage() + ")", e);
    }
    String output = new String(go.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(go.waitFor(300, TimeUnit.SECONDS)).isTrue();
    assertThat(go.exitValue()).as("go build failed (%s): %s", INSTALL, output).isZero();

    server =
        FreePorts.startServer(
            ServerOptions.builder()
                .dataDir(dataDir)
                .grpcTransport(GrpcTransportUnderTest.get())
                .ioTransport(GrpcTransportUnderTest.io()));
    assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
    api = new OpenApiClient("http://127.0.0.1:" + server.httpPort());
  }

  @AfterAll
  void stop() {
    if (client != null) {
      client.destroyForcibly();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aGrpcGoClientSetsUpRegistersReadsBackAndAcknowledgesAPush() throws Exception {
    client =
        new ProcessBuilder(binary.toString(), "127.0.0.1:" + server.grpcPort())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    toClient = new OutputStreamWriter(client.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                  (line.startsWith("push ") ? pushes : replies).add(line);
                }
              } catch (IOException e) {
                replies.add("readerror " + e);
              }
            },
            "nacosgrpc-stdout");
    reader.setDaemon(true);
    reader.start();

    JsonNode check = unary("ServerCheckRequest", Map.of("headers", Map.of()));
    assertThat(check.path("resultCode").asInt()).isEqualTo(200);
    String connectionId = check.path("connectionId").asText();
    assertThat(connectionId).contains("_127.0.0.1_");

    Map<String, Object> setup = new LinkedHashMap<>();
    setup.put("headers", Map.of());
    setup.put("clientVersion", "Nacos-Go-Client:v2.2.2");
    setup.put("tenant", "");
    setup.put("labels", Map.of("module", "naming", "source", "sdk", "AppName", "grpc-go"));
    setup.put("abilityTable", Map.of());
    setup.put("module", "internal");
    command("open " + encode("ConnectionSetupRequest", setup));
    if (check.path("supportAbilityNegotiation").asBoolean()) {
      assertThat(nextPush().type()).isEqualTo("SetupAckRequest");
    }

    Map<String, Object> named =
        Map.of("namespace", "public", "serviceName", "go-orders", "groupName", "DEFAULT_GROUP");
    Map<String, Object> subscribe = new LinkedHashMap<>(named);
    subscribe.putAll(
        Map.of("headers", Map.of(), "subscribe", true, "clusters", "", "module", "naming"));
    JsonNode subscribed = null;
    // The stream's setup is asynchronous: until the server registered the connection it refuses
    // requests with errorCode 301, which the SDKs retry.
    for (int attempt = 0; attempt < 50; attempt++) {
      subscribed = unary("SubscribeServiceRequest", subscribe);
      if (subscribed.path("resultCode").asInt() == 200) {
        break;
      }
      assertThat(subscribed.path("errorCode").asInt()).as(subscribed.toString()).isEqualTo(301);
      Thread.sleep(100);
    }
    assertThat(subscribed.path("resultCode").asInt()).as(subscribed.toString()).isEqualTo(200);

    Map<String, Object> instance = new LinkedHashMap<>();
    instance.put("ip", "127.0.0.13");
    instance.put("port", 8080);
    instance.put("weight", 1.0);
    instance.put("healthy", true);
    instance.put("enabled", true);
    instance.put("ephemeral", true);
    instance.put("clusterName", "DEFAULT");
    instance.put("metadata", Map.of("sdk", "grpc-go"));
    Map<String, Object> register = new LinkedHashMap<>(named);
    register.putAll(
        Map.of(
            "headers",
            Map.of(),
            "type",
            "registerInstance",
            "instance",
            instance,
            "module",
            "naming"));
    JsonNode registered = unary("InstanceRequest", register);
    assertThat(registered.path("resultCode").asInt()).as(registered.toString()).isEqualTo(200);

    awaitPushListing("127.0.0.13");

    Map<String, Object> query = new LinkedHashMap<>(named);
    query.putAll(
        Map.of(
            "headers",
            Map.of(),
            "cluster",
            "",
            "healthyOnly",
            false,
            "udpPort",
            0,
            "module",
            "naming"));
    JsonNode queried = unary("ServiceQueryRequest", query);
    assertThat(queried.path("resultCode").asInt()).as(queried.toString()).isEqualTo(200);
    assertThat(queried.path("serviceInfo").path("hosts").findValuesAsText("ip"))
        .containsExactly("127.0.0.13");

    // The Java side changes the service; the push reaches grpc-go on its stream.
    HttpResponse<String> added =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(
                        "http://127.0.0.1:"
                            + server.httpPort()
                            + "/nacos/v1/ns/instance?serviceName=go-orders&ip=127.0.0.14"
                            + "&port=8080&ephemeral=true"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(added.statusCode()).as(added.body()).isEqualTo(200);
    awaitPushListing("127.0.0.14");
    assertThat(api.hosts("go-orders").findValuesAsText("ip"))
        .containsExactlyInAnyOrder("127.0.0.13", "127.0.0.14");

    command("close");
    assertThat(client.waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(client.exitValue()).isZero();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (api.hosts("go-orders").size() != 1 && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(api.hosts("go-orders").findValuesAsText("ip"))
        .as("the closed channel's instance is dropped, the HTTP one stays")
        .containsExactly("127.0.0.14");
  }

  /** Waits for a NotifySubscriberRequest listing {@code ip}, acknowledging each push on the way. */
  private void awaitPushListing(String ip) throws Exception {
    while (true) {
      Pushed push = nextPush();
      assertThat(push.type()).as(push.body().toString()).isEqualTo("NotifySubscriberRequest");
      Map<String, Object> ack = new LinkedHashMap<>();
      ack.put("resultCode", 200);
      ack.put("errorCode", 0);
      ack.put("requestId", push.body().path("requestId").asText());
      command("send " + encode("NotifySubscriberResponse", ack));
      List<String> ips = push.body().path("serviceInfo").path("hosts").findValuesAsText("ip");
      if (ips.contains(ip)) {
        return;
      }
    }
  }

  private record Pushed(String type, JsonNode body) {}

  private Pushed nextPush() throws Exception {
    String line = nextLine(pushes);
    assertThat(line).as("expected a push on the stream").startsWith("push ");
    Payload payload = PayloadCodec.decode(Base64.getDecoder().decode(line.substring(5)));
    return new Pushed(payload.type(), json.readTree(payload.body()));
  }

  private int unaryIds;

  private JsonNode unary(String type, Map<String, Object> body) throws Exception {
    String id = Integer.toString(++unaryIds);
    command("unary " + id + " " + encode(type, body));
    String line = nextLine(replies);
    assertThat(line).as("grpc-go's answer to %s", type).startsWith("unary " + id + " ");
    Payload payload =
        PayloadCodec.decode(
            Base64.getDecoder().decode(line.substring(("unary " + id + " ").length())));
    assertThat(payload.type()).as(type + "'s answer").endsWith("Response");
    return json.readTree(payload.body());
  }

  private String encode(String type, Map<String, Object> body) throws IOException {
    return Base64.getEncoder()
        .encodeToString(PayloadCodec.encode(Payload.of(type, json.writeValueAsBytes(body))));
  }

  private void command(String line) throws IOException {
    toClient.write(line + "\n");
    toClient.flush();
  }

  private static String nextLine(BlockingQueue<String> from) throws InterruptedException {
    String line = from.poll(20, TimeUnit.SECONDS);
    assertThat(line)
        .as("a line from the grpc-go client within 20 s (its stderr is above)")
        .isNotNull();
    return line;
  }
}
