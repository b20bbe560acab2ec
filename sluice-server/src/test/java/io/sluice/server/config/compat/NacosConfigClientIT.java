package io.sluice.server.config.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.config.listener.Listener;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ContentMd5;
import io.sluice.server.testing.OfficialClients;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The official nacos-client's config API against a Sluice server started in the test. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NacosConfigClientIT {
  @TempDir static Path dataDir;

  private OfficialClients clients;
  private SluiceServer server;

  @BeforeAll
  void startServer() {
    clients = OfficialClients.start(dataDir);
    server = clients.server();
  }

  @AfterAll
  void stop() throws Exception {
    clients.close();
  }

  private ConfigService client(String namespace) throws Exception {
    return clients.configService(namespace);
  }

  @Test
  void publishesReadsAndRemovesAConfig() throws Exception {
    ConfigService client = client(null);

    assertThat(client.getConfig("crud.yaml", "DEFAULT_GROUP", 3000)).isNull();
    assertThat(client.publishConfig("crud.yaml", "DEFAULT_GROUP", "k: v", "yaml")).isTrue();
    assertThat(client.getConfig("crud.yaml", "DEFAULT_GROUP", 3000)).isEqualTo("k: v");
    assertThat(client.publishConfig("crud.yaml", "DEFAULT_GROUP", "k: w")).isTrue();
    assertThat(client.getConfig("crud.yaml", "DEFAULT_GROUP", 3000)).isEqualTo("k: w");
    assertThat(client.removeConfig("crud.yaml", "DEFAULT_GROUP")).isTrue();
    assertThat(client.getConfig("crud.yaml", "DEFAULT_GROUP", 3000)).isNull();
  }

  @Test
  void tellsAListenerOfEveryChange() throws Exception {
    ConfigService publisher = client(null);
    ConfigService subscriber = client(null);
    BlockingQueue<String> received = new LinkedBlockingQueue<>();
    subscriber.addListener(
        "listened.properties",
        "DEFAULT_GROUP",
        new Listener() {
          @Override
          public Executor getExecutor() {
            return null;
          }

          @Override
          public void receiveConfigInfo(String configInfo) {
            received.add(configInfo == null ? "<null>" : configInfo);
          }
        });

    publisher.publishConfig("listened.properties", "DEFAULT_GROUP", "a=1");
    assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo("a=1");
    publisher.publishConfig("listened.properties", "DEFAULT_GROUP", "a=2");
    assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo("a=2");
  }

  @Test
  void compareAndSetAppliesOnlyOverTheExpectedVersion() throws Exception {
    ConfigService client = client(null);
    client.publishConfig("cas.json", "DEFAULT_GROUP", "{\"v\":1}");
    String md5 = ContentMd5.of("{\"v\":1}");

    assertThat(client.publishConfigCas("cas.json", "DEFAULT_GROUP", "{\"v\":2}", "0000")).isFalse();
    assertThat(client.getConfig("cas.json", "DEFAULT_GROUP", 3000)).isEqualTo("{\"v\":1}");
    assertThat(client.publishConfigCas("cas.json", "DEFAULT_GROUP", "{\"v\":2}", md5)).isTrue();
    assertThat(client.getConfig("cas.json", "DEFAULT_GROUP", 3000)).isEqualTo("{\"v\":2}");
    assertThat(client.publishConfigCas("cas.json", "DEFAULT_GROUP", "{\"v\":3}", md5)).isFalse();
  }

  @Test
  void keepsNamespacesApartAndTreatsPublicAsTheDefault() throws Exception {
    ConfigService dev = client("dev");
    ConfigService prod = client("prod");
    ConfigService byDefault = client(null);
    ConfigService publicByName = client("public");

    dev.publishConfig("ns.txt", "DEFAULT_GROUP", "dev");
    prod.publishConfig("ns.txt", "DEFAULT_GROUP", "prod");
    byDefault.publishConfig("ns.txt", "DEFAULT_GROUP", "public");

    assertThat(dev.getConfig("ns.txt", "DEFAULT_GROUP", 3000)).isEqualTo("dev");
    assertThat(prod.getConfig("ns.txt", "DEFAULT_GROUP", 3000)).isEqualTo("prod");
    assertThat(publicByName.getConfig("ns.txt", "DEFAULT_GROUP", 3000)).isEqualTo("public");
  }

  @Test
  void carriesLargeAndUnicodeContentIntact() throws Exception {
    ConfigService client = client(null);
    StringBuilder large = new StringBuilder(1024 * 1024);
    while (large.length() < 1024 * 1024) {
      large.append("line ").append(large.length()).append(" ünïcødé 配置 ✓\n");
    }
    String unicode = "名前: 値\nemoji: 🚀\nrtl: שלום";

    assertThat(client.publishConfig("large.txt", "DEFAULT_GROUP", large.toString())).isTrue();
    assertThat(client.publishConfig("unicode.yaml", "组", unicode)).isTrue();

    assertThat(client.getConfig("large.txt", "DEFAULT_GROUP", 5000)).isEqualTo(large.toString());
    assertThat(client.getConfig("unicode.yaml", "组", 3000)).isEqualTo(unicode);
    assertThat(
            server
                .config()
                .find(io.sluice.server.config.ConfigKey.of("", "组", "unicode.yaml"))
                .formal()
                .md5())
        .isEqualTo(ContentMd5.of(unicode));
  }

  @Test
  void refusesOversizeContentAndKeepsServing() throws Exception {
    ConfigService client = client(null);
    String tooLarge = "x".repeat((int) ServerOptions.DEFAULT_MAX_CONTENT_BYTES + 1);

    assertThat(client.publishConfig("oversize.txt", "DEFAULT_GROUP", tooLarge)).isFalse();
    assertThat(client.getConfig("oversize.txt", "DEFAULT_GROUP", 3000)).isNull();
    assertThat(client.publishConfig("fine.txt", "DEFAULT_GROUP", "ok")).isTrue();
    assertThat(client.getConfig("fine.txt", "DEFAULT_GROUP", 3000)).isEqualTo("ok");
  }

  @Test
  void servesTheBetaVersionToAListedClientAndTellsItsListener() throws Exception {
    ConfigService client = client(null);
    client.publishConfig("beta.properties", "DEFAULT_GROUP", "mode=formal");
    BlockingQueue<String> received = new LinkedBlockingQueue<>();
    client.addListener(
        "beta.properties",
        "DEFAULT_GROUP",
        new Listener() {
          @Override
          public Executor getExecutor() {
            return null;
          }

          @Override
          public void receiveConfigInfo(String configInfo) {
            received.add(configInfo);
          }
        });
    assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo("mode=formal");

    // The client connects from 127.0.0.1; a beta publish for that address reaches it alone.
    HttpResponse<String> beta =
        http(
            HttpRequest.newBuilder(URI.create(server.httpAddress() + "/nacos/v1/cs/configs"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("betaIps", "127.0.0.1")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "dataId=beta.properties&group=DEFAULT_GROUP&content=mode%3Dbeta")));
    assertThat(beta.body()).isEqualTo("true");

    assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo("mode=beta");
    assertThat(client.getConfig("beta.properties", "DEFAULT_GROUP", 3000)).isEqualTo("mode=beta");
    assertThat(
            server
                .config()
                .find(ConfigKey.of("", "DEFAULT_GROUP", "beta.properties"))
                .formal()
                .content())
        .isEqualTo("mode=formal");
  }

  @Test
  void reconnectsWhenTheServerAsksAndKeepsListening() throws Exception {
    ConfigService client = client("reset-ns");
    client.publishConfig("reset.txt", "DEFAULT_GROUP", "one");
    BlockingQueue<String> received = new LinkedBlockingQueue<>();
    client.addListener(
        "reset.txt",
        "DEFAULT_GROUP",
        new Listener() {
          @Override
          public Executor getExecutor() {
            return null;
          }

          @Override
          public void receiveConfigInfo(String configInfo) {
            received.add(configInfo);
          }
        });
    assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo("one");
    Set<String> before = connectionIds("reset-ns");
    assertThat(before).isNotEmpty();

    for (String id : before) {
      HttpResponse<String> reset =
          http(
              HttpRequest.newBuilder(
                      URI.create(
                          server.httpAddress()
                              + "/nacos/v2/core/loader/reloadClient?connectionId="
                              + java.net.URLEncoder.encode(
                                  id, java.nio.charset.StandardCharsets.UTF_8)))
                  .GET());
      assertThat(reset.statusCode()).isEqualTo(200);
      assertThat(reset.body()).isEqualTo("success");
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              Set<String> after = connectionIds("reset-ns");
              assertThat(after).isNotEmpty().doesNotContainAnyElementsOf(before);
            });

    ConfigService publisher = client("reset-ns");
    publisher.publishConfig("reset.txt", "DEFAULT_GROUP", "two");
    assertThat(received.poll(15, TimeUnit.SECONDS)).isEqualTo("two");
  }

  private Set<String> connectionIds(String namespace) throws Exception {
    HttpResponse<String> current =
        http(
            HttpRequest.newBuilder(
                    URI.create(server.httpAddress() + "/nacos/v2/core/loader/current"))
                .GET());
    assertThat(current.statusCode()).isEqualTo(200);
    JsonNode all = new ObjectMapper().readTree(current.body());
    Set<String> ids = new java.util.TreeSet<>();
    all.fields()
        .forEachRemaining(
            entry -> {
              if (namespace.equals(entry.getValue().path("namespace").asText())
                  && "config".equals(entry.getValue().path("module").asText())) {
                ids.add(entry.getKey());
              }
            });
    return ids;
  }

  private static HttpResponse<String> http(HttpRequest.Builder request) throws Exception {
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
