package io.sluice.server.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A sluice-server in its own JVM, started as {@code sluice server} with this test's class path, so
 * a test can kill it for real (SIGKILL) and start it again over the same data directory.
 */
public final class ServerProcess implements AutoCloseable {
  private final Process process;
  private final ProcessOutput output;
  private final int httpPort;

  private ServerProcess(Process process, int httpPort) {
    this.process = process;
    this.output = ProcessOutput.of(process, "server-process-output");
    this.httpPort = httpPort;
  }

  /**
   * Starts a server on free ports ({@link FreePorts#onHttpPort}: tried again on others while a port
   * was taken) and waits until it says it is ready; {@link #httpPort} says where.
   */
  public static ServerProcess startOnFreePorts(
      Path dataDir,
      List<String> serverArguments,
      Map<String, String> environment,
      String... jvmOptions)
      throws Exception {
    return FreePorts.onHttpPort(
        port -> start(port, dataDir, serverArguments, environment, jvmOptions));
  }

  /** {@link #startOnFreePorts(Path, List, Map, String...)} behind {@code commandPrefix}. */
  public static ServerProcess startOnFreePorts(
      List<String> commandPrefix, Path dataDir, List<String> serverArguments, String... jvmOptions)
      throws Exception {
    return FreePorts.onHttpPort(
        port -> start(commandPrefix, port, dataDir, serverArguments, jvmOptions));
  }

  /** Starts a server and waits until it says it is ready. */
  public static ServerProcess start(int httpPort, Path dataDir, String... jvmOptions)
      throws IOException, InterruptedException {
    return start(httpPort, dataDir, List.of(), Map.of(), jvmOptions);
  }

  /**
   * Starts a server with extra {@code sluice server} arguments and environment variables, and waits
   * until it says it is ready.
   */
  public static ServerProcess start(
      int httpPort,
      Path dataDir,
      List<String> serverArguments,
      Map<String, String> environment,
      String... jvmOptions)
      throws IOException, InterruptedException {
    ServerProcess server = launch(httpPort, dataDir, serverArguments, environment, jvmOptions);
    try {
      server.awaitOutput("sluice server ready", 120);
    } catch (AssertionError | InterruptedException e) {
      server.kill();
      throw e;
    }
    return server;
  }

  /**
   * Starts a server behind {@code commandPrefix} (see {@link #launch(List, int, Path, List, Map,
   * String...)}) and waits until it says it is ready; kills it if it does not.
   */
  public static ServerProcess start(
      List<String> commandPrefix,
      int httpPort,
      Path dataDir,
      List<String> serverArguments,
      String... jvmOptions)
      throws IOException, InterruptedException {
    ServerProcess server =
        launch(commandPrefix, httpPort, dataDir, serverArguments, Map.of(), jvmOptions);
    try {
      server.awaitOutput("sluice server ready", 120);
    } catch (AssertionError | InterruptedException e) {
      server.kill();
      throw e;
    }
    return server;
  }

  /**
   * Starts {@code sluice server} with {@code serverArguments} after the port and data directory,
   * and returns at once (a cluster node says it is ready only once a leader is elected, which needs
   * the other nodes): wait with {@link #awaitOutput}.
   */
  public static ServerProcess launch(
      int httpPort, Path dataDir, List<String> serverArguments, String... jvmOptions)
      throws IOException {
    return launch(httpPort, dataDir, serverArguments, Map.of(), jvmOptions);
  }

  /** {@link #launch}, with environment variables added to this process's. */
  public static ServerProcess launch(
      int httpPort,
      Path dataDir,
      List<String> serverArguments,
      Map<String, String> environment,
      String... jvmOptions)
      throws IOException {
    return launch(List.of(), httpPort, dataDir, serverArguments, environment, jvmOptions);
  }

  /**
   * {@link #launch} behind {@code commandPrefix}, words that run {@code java} in another setting
   * (e.g. {@code ip netns exec <name>}: in a network namespace); they must exec it, so that this
   * object's process is the server's JVM. The server serves gRPC on the {@link
   * GrpcTransportUnderTest} unless {@code serverArguments} choose a transport themselves.
   */
  public static ServerProcess launch(
      List<String> commandPrefix,
      int httpPort,
      Path dataDir,
      List<String> serverArguments,
      Map<String, String> environment,
      String... jvmOptions)
      throws IOException {
    List<String> command = new ArrayList<>(commandPrefix);
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of(jvmOptions));
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("io.sluice.server.launcher.SluiceCommand");
    command.add("server");
    command.add("--port");
    command.add(Integer.toString(httpPort));
    command.add("--data-dir");
    command.add(dataDir.toString());
    command.addAll(serverArguments);
    if (!serverArguments.contains(GrpcTransportUnderTest.OPTION)) {
      command.addAll(GrpcTransportUnderTest.serverArguments());
    }
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(environment);
    return new ServerProcess(builder.start(), httpPort);
  }

  /** The HTTP port it was started on (gRPC on + 1000). */
  public int httpPort() {
    return httpPort;
  }

  public String awaitOutput(String prefix, int seconds) throws InterruptedException {
    return output.awaitLine(prefix, seconds);
  }

  /** The first line containing {@code text}, waiting for it as {@link #awaitOutput} does. */
  public String awaitOutputContaining(String text, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      for (String line : output.lines()) {
        if (line.contains(text)) {
          return line;
        }
      }
      if (!process.isAlive()) {
        throw new AssertionError(
            "server exited with " + process.exitValue() + ": " + output.lines());
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no line containing '" + text + "' in: " + output.lines());
  }

  /**
   * Waits up to {@code seconds} for the process to exit by itself and returns its exit code, once
   * its output holds a line containing {@code text} (the output is read on another thread, which
   * may lag the exit a little).
   */
  public int awaitExitSaying(String text, int seconds) throws InterruptedException {
    if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
      throw new AssertionError(
          "server still runs after " + seconds + " s: " + String.join("\n", output.lines()));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (output.lines().stream().noneMatch(line -> line.contains(text))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "server exited with "
                + process.exitValue()
                + " without saying '"
                + text
                + "': "
                + String.join("\n", output.lines()));
      }
      Thread.sleep(20);
    }
    return process.exitValue();
  }

  public long pid() {
    return process.pid();
  }

  public List<String> output() {
    return output.lines();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * SIGSTOP: the process freezes as a hung or partitioned machine would, sockets left open. Returns
   * once every thread is stopped: {@code kill} only queues the signal, and a thread still running
   * on the other core could answer one more request (seen in CI: a frozen member's share counted 18
   * ms after the signal was sent).
   */
  public void pause() throws IOException, InterruptedException {
    signal("STOP");
    Path tasks = Path.of("/proc", Long.toString(pid()), "task");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (Files.isDirectory(tasks) && !allStopped(tasks)) {
      if (System.nanoTime() > deadline) {
        throw new IOException("process " + pid() + " not stopped 10 s after SIGSTOP");
      }
      Thread.sleep(1);
    }
  }

  /** Whether every thread under {@code /proc/PID/task} is in state T (stopped) or t (traced). */
  private static boolean allStopped(Path tasks) throws IOException {
    try (Stream<Path> threads = Files.list(tasks)) {
      for (Path thread : (Iterable<Path>) threads::iterator) {
        String stat;
        try {
          stat = Files.readString(thread.resolve("stat"));
        } catch (NoSuchFileException e) {
          continue; // the thread ended meanwhile
        }
        // "tid (comm) S ...": the state follows the last ')' (a thread name may hold one).
        char state = stat.charAt(stat.lastIndexOf(')') + 2);
        if (state != 'T' && state != 't') {
          return false;
        }
      }
    }
    return true;
  }

  /** SIGCONT after {@link #pause}. */
  public void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  private void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid())).start();
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + name + " " + pid() + " failed");
    }
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        kill();
      }
    }
  }
}
