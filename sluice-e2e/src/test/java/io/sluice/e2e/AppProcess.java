package io.sluice.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test application in its own JVM under the agent, driven over HTTP. It listens on a port the
 * kernel gives it ({@code --server.port=0}), which this reads from its log ({@link WebServerPort}).
 */
final class AppProcess implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  /** Numbers the output files of the applications this JVM starts. */
  private static final AtomicInteger STARTED = new AtomicInteger();

  private final Process process;
  private final String host;
  private final int port;
  private final Path output;
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final String readyPath;

  private AppProcess(Process process, String host, int port, Path output, String readyPath) {
    this.process = process;
    this.host = host;
    this.port = port;
    this.output = output;
    this.readyPath = readyPath;
  }

  /**
   * Starts {@code appJar} on {@code javaHome} with the agent and waits until it serves requests.
   *
   * @param agentArgs the agent's arguments, or null to run without the agent
   */
  static AppProcess start(
      Path javaHome, Path appJar, Path agentJar, String agentArgs, String appName, Path workDir)
      throws Exception {
    return start(
        javaHome, appJar, agentJar, agentArgs, appName, workDir, List.of(), List.of(), "/orders/0");
  }

  /**
   * As above, with extra JVM options (before {@code -jar}), extra application arguments, and the
   * path that answers 200 once the application serves.
   */
  static AppProcess start(
      Path javaHome,
      Path appJar,
      Path agentJar,
      String agentArgs,
      String appName,
      Path workDir,
      List<String> jvmOptions,
      List<String> appArgs,
      String readyPath)
      throws Exception {
    return start(
        null,
        javaHome,
        appJar,
        agentJar,
        agentArgs,
        appName,
        workDir,
        jvmOptions,
        appArgs,
        readyPath);
  }

  /**
   * As above, inside {@code namespace} when it is not null: started there and reached at its
   * address (the application listens on every address it has, Spring's default).
   */
  static AppProcess start(
      NetworkNamespace namespace,
      Path javaHome,
      Path appJar,
      Path agentJar,
      String agentArgs,
      String appName,
      Path workDir,
      List<String> jvmOptions,
      List<String> appArgs,
      String readyPath)
      throws Exception {
    Files.createDirectories(workDir);
    List<String> command = new ArrayList<>();
    String host = "127.0.0.1";
    if (namespace != null) {
      // ip netns exec execs java: the process is the application's JVM.
      command.addAll(namespace.commandPrefix());
      host = namespace.address();
    }
    command.add(javaHome.resolve("bin/java").toString());
    command.add("-Xmx256m");
    command.add("-XX:+UseSerialGC");
    // The client compiler only, as the demo chain's applications run: a start under the agent
    // takes about half the CPU (9-11 s against 17-20 s for boot3-app here), and these tests measure
    // no speed (their rates are open-loop and far below what either compiler serves).
    command.add("-XX:TieredStopAtLevel=1");
    command.addAll(jvmOptions);
    if (agentArgs != null) {
      command.add("-javaagent:" + agentJar + "=" + agentArgs);
    }
    command.add("-jar");
    command.add(appJar.toString());
    command.add("--server.port=0");
    command.add("--spring.application.name=" + appName);
    command.add("--spring.main.banner-mode=off");
    command.addAll(appArgs);
    Path output = workDir.resolve(appName + "-" + STARTED.incrementAndGet() + ".out");
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .directory(workDir.toFile())
            .start();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    int port;
    try {
      port = WebServerPort.await(process, output, 0, START_TIMEOUT);
    } catch (Exception | AssertionError e) {
      stop(process);
      throw e;
    }
    AppProcess app = new AppProcess(process, host, port, output, readyPath);
    try {
      app.awaitServing(deadline);
    } catch (Exception | AssertionError e) {
      app.close();
      throw e;
    }
    return app;
  }

  private void awaitServing(long deadline) throws Exception {
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new AssertionError(
            "application exited with " + process.exitValue() + ":\n" + output());
      }
      try {
        if (get(readyPath).statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // Not listening yet.
      }
      Thread.sleep(200);
    }
    throw new AssertionError(
        "application did not start within " + START_TIMEOUT + ":\n" + output());
  }

  URI uri(String path) {
    return URI.create(base() + path);
  }

  String base() {
    return "http://" + host + ":" + port;
  }

  int port() {
    return port;
  }

  HttpResponse<String> get(String path, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> post(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  String output() {
    try {
      return Files.readString(output, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no output: " + e + ")";
    }
  }

  long pid() {
    return process.pid();
  }

  @Override
  public void close() throws InterruptedException {
    stop(process);
  }

  private static void stop(Process process) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(15, java.util.concurrent.TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
