package io.sluice.e2e.chain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.e2e.NetworkNamespace;
import io.sluice.server.testing.ProcessOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Runs {@code bin/sluice demo} as a user does, as a process, and stops it with Ctrl-C (SIGINT).
 *
 * <p>In a network namespace of its own: the demo runs the reference build, whose b and c are Dubbo
 * providers, and Dubbo registers and calls an interface's address, never a loopback one (see the
 * e2e module's README). The demo listens on the namespace's loopback, so this test looks at it from
 * inside the namespace too, with curl, as its user would from a shell beside it.
 */
@ResourceLock(DemoChain.LOCK)
class DemoCommandIT {
  private static final Path LAUNCHER = Path.of("..", "bin", "sluice").toAbsolutePath().normalize();

  /** Not the defaults, to see the options taken; any are free in a namespace of its own. */
  private static final int PORT = 28080;

  private static final int SERVER_PORT = 28848;

  @BeforeAll
  static void leaveTheMachineToTheDemo() throws InterruptedException {
    DemoChain.closeShared();
  }

  @Test
  void startsTheChainPrintsWhatToCurlAndStopsEveryProcessOnCtrlC() throws Exception {
    try (NetworkNamespace namespace = NetworkNamespace.create()) {
      List<String> command = new ArrayList<>(namespace.commandPrefix());
      command.addAll(
          List.of(
              LAUNCHER.toString(),
              "demo",
              "--gray-c",
              "--port",
              Integer.toString(PORT),
              "--server-port",
              Integer.toString(SERVER_PORT)));
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
      // Maven built every jar just before this test; never let the script rebuild under it.
      builder.environment().put("SLUICE_SKIP_BUILD", "1");
      builder.environment().put("SLUICE_CDS", "off");
      // ip netns exec execs the launcher, which execs the demo's script: this is its process.
      Process demo = builder.start();
      ProcessOutput out = ProcessOutput.of(demo, "demo-output");
      try {
        runs(demo, out, namespace);
      } finally {
        demo.descendants().forEach(ProcessHandle::destroyForcibly);
        demo.destroyForcibly();
      }
    }
  }

  private void runs(Process demo, ProcessOutput out, NetworkNamespace namespace) throws Exception {
    List<String> output = out.lines();
    out.awaitLine("Sluice demo ready", 360);
    System.out.println(String.join("\n", output));
    String gateway = "http://127.0.0.1:" + PORT;
    assertThat(output)
        .anyMatch(line -> line.contains("plus b[gray] c[gray]"))
        .anyMatch(line -> line.contains("curl " + gateway + "/a/httpTest"))
        .anyMatch(line -> line.contains("the 50 % lane"))
        .anyMatch(line -> line.contains("Ctrl-C stops everything"));

    Answer path = curl(namespace, gateway + "/a/httpTest");
    assertThat(path.status()).as(path.body()).isEqualTo(200);
    assertThat(path.body()).matches(DemoChain.PATH);
    assertThat(curl(namespace, gateway + "/a/httpTest", "x-sluice-lane: gray").body())
        .isEqualTo("gateway > a[base] > b[gray] > c[gray]");
    // The same lanes over Dubbo (a -> b -> c), and over Dubbo then HTTP (a -> b, b -> c).
    assertThat(output)
        .anyMatch(
            line -> line.contains("curl -H 'x-sluice-lane: gray' " + gateway + "/a/dubboTest"))
        .anyMatch(line -> line.contains("curl " + gateway + "/a/mixedTest"));
    for (String dubboPath : List.of("/a/dubboTest", "/a/mixedTest")) {
      assertThat(curl(namespace, gateway + dubboPath).body()).as(dubboPath).matches(DemoChain.PATH);
      // The gray providers are registered; a's Dubbo consumer has them once the push arrives.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  curl(namespace, gateway + dubboPath, "x-sluice-lane: gray")
                      .body()
                      .equals("gateway > a[base] > b[gray] > c[gray]"));
    }
    String api = "http://127.0.0.1:" + SERVER_PORT + "/nacos/v1";
    assertThat(curl(namespace, api + "/cs/configs?group=SLUICE&dataId=lanes").body())
        .contains("\"percentage\":50");
    for (String app : DemoChain.APPS) {
      assertThat(
              curl(
                      namespace,
                      api + "/cs/configs?group=SENTINEL_GROUP&dataId=" + app + "-flow-rules")
                  .body())
          .as(app)
          .contains("\"count\":10000");
    }
    assertThat(curl(namespace, api + "/cs/configs?group=SENTINEL_GROUP&dataId=b-flow-rules").body())
        .contains("io.sluice.examples.api.BService:dubboTest()");
    // Dubbo registered b's services at the namespace's address, the one it has besides loopback.
    assertThat(curl(namespace, api + "/ns/instance/list?serviceName=b&groupName=dubbo").body())
        .contains("\"ip\":\"" + namespace.address() + "\"");

    List<ProcessHandle> jvms = demo.descendants().toList();
    assertThat(jvms.stream().filter(p -> p.info().command().orElse("").endsWith("java")))
        .as("sluice-server and six applications")
        .hasSize(7);
    new ProcessBuilder("kill", "-INT", Long.toString(demo.pid())).start().waitFor();
    assertThat(demo.waitFor(90, TimeUnit.SECONDS)).as("exits after Ctrl-C").isTrue();
    assertThat(jvms).noneMatch(ProcessHandle::isAlive);
    assertThat(out.awaitLine("stopped; logs kept in", 5)).isNotNull();
  }

  /** A GET made with curl inside {@code namespace}, with {@code "name: value"} headers. */
  private static Answer curl(NetworkNamespace namespace, String url, String... headers)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(namespace.commandPrefix());
    command.addAll(List.of("curl", "-s", "--noproxy", "*", "-m", "30", "-w", "\n%{http_code}"));
    for (String header : headers) {
      command.add("-H");
      command.add(header);
    }
    command.add(url);
    Process curl =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String printed = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!curl.waitFor(40, TimeUnit.SECONDS)) {
      curl.destroyForcibly();
      throw new IOException("curl " + url + " did not finish within 40 s");
    }
    int end = printed.lastIndexOf('\n');
    return new Answer(
        Integer.parseInt(printed.substring(end + 1).trim()), printed.substring(0, end));
  }

  /** An HTTP answer: its status (0 when none came) and body. */
  private record Answer(int status, String body) {}
}
