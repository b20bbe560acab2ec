package io.sluice.e2e.chain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.server.testing.FreePorts;
import io.sluice.server.testing.ProcessOutput;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Runs {@code bin/sluice demo} as a user does, as a process, and stops it with Ctrl-C (SIGINT). */
class DemoCommandIT {
  private static final Path LAUNCHER = Path.of("..", "bin", "sluice").toAbsolutePath().normalize();

  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void leaveTheMachineToTheDemo() throws InterruptedException {
    DemoChain.closeShared();
  }

  @Test
  void startsTheChainPrintsWhatToCurlAndStopsEveryProcessOnCtrlC() throws Exception {
    int serverPort = FreePorts.httpPortWithFreeGrpcPort();
    int port = gatewayPortWithFreeNeighbours();
    ProcessBuilder builder =
        new ProcessBuilder(
                LAUNCHER.toString(),
                "demo",
                "--gray-c",
                "--port",
                Integer.toString(port),
                "--server-port",
                Integer.toString(serverPort))
            .redirectErrorStream(true);
    // Maven built every jar just before this test; never let the script rebuild under it.
    builder.environment().put("SLUICE_SKIP_BUILD", "1");
    builder.environment().put("SLUICE_CDS", "off");
    Process demo = builder.start();
    ProcessOutput out = ProcessOutput.of(demo, "demo-output");
    List<String> output = out.lines();
    try {
      out.awaitLine("Sluice demo ready", 360);
      System.out.println(String.join("\n", output));
      String gateway = "http://127.0.0.1:" + port;
      assertThat(output)
          .anyMatch(line -> line.contains("plus b[gray] c[gray]"))
          .anyMatch(line -> line.contains("curl " + gateway + "/a/httpTest"))
          .anyMatch(line -> line.contains("the 50 % lane"))
          .anyMatch(line -> line.contains("Ctrl-C stops everything"));

      HttpResponse<String> path = get(gateway + "/a/httpTest");
      assertThat(path.statusCode()).isEqualTo(200);
      assertThat(path.body()).matches(DemoChain.PATH);
      HttpResponse<String> gray =
          http.send(
              HttpRequest.newBuilder(URI.create(gateway + "/a/httpTest"))
                  .header("x-sluice-lane", "gray")
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(gray.body()).isEqualTo("gateway > a[base] > b[gray] > c[gray]");
      // The same lanes over Dubbo (a -> b -> c), and over Dubbo then HTTP (a -> b, b -> c).
      assertThat(output)
          .anyMatch(
              line -> line.contains("curl -H 'x-sluice-lane: gray' " + gateway + "/a/dubboTest"))
          .anyMatch(line -> line.contains("curl " + gateway + "/a/mixedTest"));
      for (String dubboPath : List.of("/a/dubboTest", "/a/mixedTest")) {
        assertThat(get(gateway + dubboPath).body()).as(dubboPath).matches(DemoChain.PATH);
        HttpRequest grayOverDubbo =
            HttpRequest.newBuilder(URI.create(gateway + dubboPath))
                .header("x-sluice-lane", "gray")
                .build();
        // The gray providers are registered; a's Dubbo consumer has them once the push arrives.
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    http.send(grayOverDubbo, HttpResponse.BodyHandlers.ofString())
                        .body()
                        .equals("gateway > a[base] > b[gray] > c[gray]"));
      }
      String api = "http://127.0.0.1:" + serverPort + "/nacos/v1/cs/configs";
      assertThat(get(api + "?group=SLUICE&dataId=lanes").body()).contains("\"percentage\":50");
      for (String app : DemoChain.APPS) {
        assertThat(get(api + "?group=SENTINEL_GROUP&dataId=" + app + "-flow-rules").body())
            .as(app)
            .contains("\"count\":10000");
      }
      assertThat(get(api + "?group=SENTINEL_GROUP&dataId=b-flow-rules").body())
          .contains("io.sluice.examples.api.BService:dubboTest()");

      List<ProcessHandle> jvms = demo.descendants().toList();
      assertThat(jvms.stream().filter(p -> p.info().command().orElse("").endsWith("java")))
          .as("sluice-server and six applications")
          .hasSize(7);
      new ProcessBuilder("kill", "-INT", Long.toString(demo.pid())).start().waitFor();
      assertThat(demo.waitFor(90, TimeUnit.SECONDS)).as("exits after Ctrl-C").isTrue();
      assertThat(jvms).noneMatch(ProcessHandle::isAlive);
      assertThat(out.awaitLine("stopped; logs kept in", 5)).isNotNull();
    } finally {
      demo.descendants().forEach(ProcessHandle::destroyForcibly);
      demo.destroyForcibly();
    }
  }

  private HttpResponse<String> get(String uri) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(uri)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * A port P with P+1..P+3, P+12 and P+13 free too, and P+22, P+23, P+32 and P+33 for Dubbo: the
   * demo's instances. Below Linux's ephemeral range (32768 and up), so that a burst of client
   * connections elsewhere cannot take them.
   */
  private static int gatewayPortWithFreeNeighbours() {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(22_000, 32_000);
      if (List.of(0, 1, 2, 3, 12, 13, 22, 23, 32, 33).stream()
          .allMatch(offset -> isFree(port + offset))) {
        return port;
      }
    }
    throw new IllegalStateException("no free ports for the demo");
  }

  private static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket(port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
