package io.sluice.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alibaba.nacos.api.config.ConfigService;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.testing.FreePorts;
import io.sluice.server.testing.GrpcTransportUnderTest;
import io.sluice.server.testing.OfficialClients;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on both ports from a PEM certificate and key: HTTPS for the Open API, and the official
 * nacos-client's own TLS settings ({@code nacos.remote.client.rpc.tls.*}) over gRPC.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsIT {
  private static final Path CERT =
      Path.of("src/test/resources/tls/server-cert.pem").toAbsolutePath();
  private static final Path KEY = Path.of("src/test/resources/tls/server-key.pem").toAbsolutePath();

  @TempDir static Path dataDir;

  private OfficialClients clients;
  private SluiceServer server;

  @BeforeAll
  void start() {
    clients = OfficialClients.start(dataDir, options -> options.tls(CERT, KEY));
    server = clients.server();
  }

  @AfterAll
  void stop() throws Exception {
    clients.close();
  }

  @Test
  void theHttpPortSpeaksHttpsWithTheGivenCertificate() throws Exception {
    HttpClient trusting =
        HttpClient.newBuilder()
            .sslContext(trusting(CERT))
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    HttpResponse<String> readiness =
        trusting.send(
            HttpRequest.newBuilder(
                    URI.create(server.httpAddress() + "/nacos/v1/console/health/readiness"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(server.httpAddress()).startsWith("https://");
    assertThat(readiness.statusCode()).isEqualTo(200);
    // Plain HTTP gets no answer from a TLS port.
    HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    assertThatThrownBy(
            () ->
                plain.send(
                    HttpRequest.newBuilder(
                            URI.create(
                                "http://127.0.0.1:"
                                    + server.httpPort()
                                    + "/nacos/v1/console/health/readiness"))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                    HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(IOException.class);
  }

  @Test
  void theOfficialClientPublishesAndReadsOverGrpcWithTls() throws Exception {
    Properties tls = new Properties();
    tls.put("nacos.remote.client.rpc.tls.enable", "true");
    // The client reads this path as a class path resource.
    tls.put("nacos.remote.client.rpc.tls.trustCollectionChainPath", "tls/server-cert.pem");
    ConfigService client = clients.configService(tls);

    assertThat(client.publishConfig("over-tls.yaml", "DEFAULT_GROUP", "secure: true")).isTrue();
    assertThat(client.getConfig("over-tls.yaml", "DEFAULT_GROUP", 5000)).isEqualTo("secure: true");
  }

  @Test
  void theOfficialClientLogsInOverHttpsAndWorksWithAuthOn() throws Exception {
    char[] storePassword = "changeit".toCharArray();
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(CERT)) {
      trust.setCertificateEntry(
          "sluice", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    Path trustStore = dataDir.resolve("trust.p12");
    try (OutputStream out = Files.newOutputStream(trustStore)) {
      trust.store(out, storePassword);
    }
    try (SluiceServer secured =
        FreePorts.startServer(
            ServerOptions.builder()
                .dataDir(dataDir.resolve("auth-on"))
                .tls(CERT, KEY)
                .authMode(ServerOptions.AuthMode.ON)
                .initialAdminPassword("admin-secret-1")
                .grpcTransport(GrpcTransportUnderTest.get())
                .ioTransport(GrpcTransportUnderTest.io()))) {
      assertThat(secured.awaitReady(30, TimeUnit.SECONDS)).isTrue();

      // Both clients at once: each is a JVM of its own that mostly waits on the server.
      Probe rightProbe = probe(secured, trustStore, "admin-secret-1", "https-right.yaml");
      Probe wrongProbe = probe(secured, trustStore, "not-the-password", "https-wrong.yaml");
      String right = rightProbe.awaitOutput();
      String wrong = wrongProbe.awaitOutput();

      assertThat(right).contains("PROBE published=true").contains("PROBE read=tls: yes");
      assertThat(wrong)
          .contains("login failed")
          .doesNotContain("PROBE published=true")
          .doesNotContain("PROBE read=tls");
    }
  }

  /** A running {@link HttpsLoginProbe}. */
  private record Probe(Process process, Path output) {
    /** Its output, once it exited (or was killed after two minutes). */
    String awaitOutput() throws Exception {
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
      return Files.readString(output);
    }
  }

  /** Starts {@link HttpsLoginProbe} against {@code server} in a JVM of its own. */
  private static Probe probe(SluiceServer server, Path trustStore, String password, String dataId)
      throws Exception {
    Path output = Files.createTempFile(dataDir, "probe", ".out");
    // Its own local config cache: the client would answer a read from an earlier probe's copy.
    Path cache = Files.createTempDirectory(dataDir, "probe-cache");
    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djavax.net.ssl.trustStore=" + trustStore,
                "-Djavax.net.ssl.trustStorePassword=changeit",
                "-Djavax.net.ssl.trustStoreType=PKCS12",
                "-DJM.LOG.PATH=" + Path.of("target", "nacos-client-logs").toAbsolutePath(),
                "-DJM.SNAPSHOT.PATH=" + cache,
                "-cp",
                System.getProperty("java.class.path"),
                HttpsLoginProbe.class.getName(),
                server.httpAddress(),
                "nacos",
                password,
                dataId)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    return new Probe(process, output);
  }

  private static SSLContext trusting(Path certificate) throws Exception {
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(certificate)) {
      trust.setCertificateEntry(
          "sluice", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, factory.getTrustManagers(), null);
    return context;
  }
}
