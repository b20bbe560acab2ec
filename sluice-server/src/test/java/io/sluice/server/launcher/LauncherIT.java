package io.sluice.server.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.testing.FreePorts;
import io.sluice.server.testing.ProcessOutput;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs {@code bin/sluice} the way a user does: as a process, stopped with Ctrl-C (SIGINT). */
class LauncherIT {
  private static final Path LAUNCHER = Path.of("..", "bin", "sluice").toAbsolutePath().normalize();

  private static final boolean LINUX_X86_64 =
      System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")
          && Set.of("amd64", "x86_64").contains(System.getProperty("os.arch", ""));

  /** Keeps Netty from loading any native transport, as on a machine it has no library for. */
  private static final Map<String, String> NO_NATIVE_TRANSPORT =
      Map.of("SLUICE_JAVA_OPTS", "-Dio.netty.transport.noNative=true");

  /** The heap options bin/sluice gives a cluster node (docs/operations.md, "Sizing"). */
  private static final String[] CLUSTER_HEAP_OPTIONS = {
    "-XX:+UseG1GC",
    "-Xms64m",
    "-Xmx3g",
    "-XX:G1PeriodicGCInterval=60000",
    "-XX:MaxHeapFreeRatio=30",
    "-XX:GCTimeRatio=4"
  };

  @Test
  void serverStartsAnswersReadinessAndStopsCleanlyOnCtrlC(@TempDir Path dataDir) throws Exception {
    Launched launched = FreePorts.onHttpPort(port -> launch(port, dataDir));
    int port = launched.port();
    Process process = launched.process();
    ProcessOutput output = launched.output();
    try {
      String ready = launched.ready();
      System.out.println("launcher said: " + ready);
      assertThat(ready)
          .contains("http://127.0.0.1:" + port + "/nacos")
          .contains("gRPC 127.0.0.1:" + (port + 1000))
          .contains(dataDir.toString());
      // One line at start says what carries the gRPC port's sockets: on Linux x86-64, the
      // native library shipped in target/lib.
      String io =
          LINUX_X86_64 ? "Netty's native epoll transport (--io auto)" : "Java NIO (--io auto: ";
      assertThat(output.lines())
          .anyMatch(
              line ->
                  line.contains("gRPC port 127.0.0.1:" + (port + 1000) + ": netty-h2 on " + io));

      HttpResponse<String> readiness =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(
                              "http://127.0.0.1:" + port + "/nacos/v1/console/health/readiness"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(readiness.statusCode()).isEqualTo(200);

      new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start().waitFor();
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("exits after Ctrl-C").isTrue();
      assertThat(output.awaitLine("sluice server: stopped", 5)).isNotNull();
      assertThat(dataDir).isDirectory();
    } finally {
      process.destroyForcibly();
    }
  }

  @Test
  void clusterNodeRunsG1ThatGivesIdleHeapBack(@TempDir Path dataDir) throws Exception {
    Launched launched =
        FreePorts.onHttpPort(port -> launch(port, dataDir, "--peers", "127.0.0.1:" + port));
    Process process = launched.process();
    try {
      List<String> jvmArguments = jvmArguments(process);
      assertThat(jvmArguments).contains(CLUSTER_HEAP_OPTIONS).doesNotContain("-XX:+UseSerialGC");
    } finally {
      process.destroyForcibly().waitFor();
    }
  }

  @Test
  void standaloneServerKeepsTheSmallSerialHeap(@TempDir Path dataDir) throws Exception {
    Launched launched = FreePorts.onHttpPort(port -> launch(port, dataDir));
    Process process = launched.process();
    try {
      assertThat(jvmArguments(process))
          .contains("-XX:+UseSerialGC", "-Xmx1g")
          .doesNotContain(CLUSTER_HEAP_OPTIONS);
    } finally {
      process.destroyForcibly().waitFor();
    }
  }

  @Test
  void autoFallsBackToNioSayingWhyWhereNativeEpollDoesNotLoad(@TempDir Path dataDir)
      throws Exception {
    Launched launched =
        FreePorts.onHttpPort(port -> launch(port, dataDir, NO_NATIVE_TRANSPORT, "--io", "auto"));
    try {
      assertThat(launched.output().lines())
          .anyMatch(
              line ->
                  line.contains("netty-h2 on Java NIO (--io auto: native epoll unavailable: ")
                      && line.contains("noNative"));
    } finally {
      launched.process().destroyForcibly().waitFor();
    }
  }

  @Test
  void epollWhereItDoesNotLoadRefusesToStartWithOneLineAndNoStackTrace(@TempDir Path dataDir)
      throws Exception {
    Process process =
        command(0, dataDir, NO_NATIVE_TRANSPORT, "--io", "epoll").redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isNotZero();
    assertThat(output)
        .contains(
            "sluice server: could not start: --io epoll: Netty's native epoll transport cannot be"
                + " used here (")
        .doesNotContain("\tat ")
        .doesNotContain("sluice server ready");
  }

  /** The JVM's command line: the launcher execs java, so the process is the JVM by now. */
  private static List<String> jvmArguments(Process process) {
    return process.info().arguments().map(List::of).orElseThrow();
  }

  /** {@code bin/sluice server} started on {@code port}, and the line it said it was ready with. */
  private record Launched(int port, Process process, ProcessOutput output, String ready) {}

  /** Starts {@code bin/sluice server} on {@code port} and waits until it says it is ready. */
  private static Launched launch(int port, Path dataDir, String... more) throws Exception {
    return launch(port, dataDir, Map.of(), more);
  }

  private static Launched launch(
      int port, Path dataDir, Map<String, String> environment, String... more) throws Exception {
    ProcessBuilder builder = command(port, dataDir, environment, more).redirectErrorStream(true);
    Process process = builder.start();
    ProcessOutput output = ProcessOutput.of(process, "launcher-output");
    try {
      return new Launched(port, process, output, output.awaitLine("sluice server ready", 120));
    } catch (AssertionError | InterruptedException e) {
      process.destroyForcibly().waitFor();
      throw e;
    }
  }

  /** {@code bin/sluice server} on {@code port}, not started. */
  private static ProcessBuilder command(
      int port, Path dataDir, Map<String, String> environment, String... more) {
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            LAUNCHER.toString(),
            "server",
            "--port",
            Integer.toString(port),
            "--data-dir",
            dataDir.toString()));
    command.addAll(List.of(more));
    ProcessBuilder builder = new ProcessBuilder(command);
    // Maven packaged the jar just before this test; never let the launcher rebuild under it.
    builder.environment().put("SLUICE_SKIP_BUILD", "1");
    // Recording the class-data archive at exit takes seconds on a loaded machine.
    builder.environment().put("SLUICE_CDS", "off");
    builder.environment().putAll(environment);
    return builder;
  }

  @Test
  void helpDescribesTheServerOptions() throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(LAUNCHER.toString(), "server", "--help").redirectErrorStream(true);
    builder.environment().put("SLUICE_SKIP_BUILD", "1");
    Process process = builder.start();
    String help = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isZero();
    assertThat(help).contains("--port=PORT", "--data-dir=DIR", "--bind=ADDRESS");
  }
}
