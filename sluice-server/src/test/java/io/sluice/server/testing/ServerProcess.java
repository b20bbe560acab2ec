package io.sluice.server.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A sluice-server in its own JVM, started as {@code sluice server} with this test's class path, so
 * a test can kill it for real (SIGKILL) and start it again over the same data directory.
 */
public final class ServerProcess implements AutoCloseable {
  private final Process process;
  private final List<String> output = new CopyOnWriteArrayList<>();

  private ServerProcess(Process process) {
    this.process = process;
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                  output.add(line);
                }
              } catch (IOException ignored) {
                // The process went away.
              }
            },
            "server-process-output");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts a server and waits until it says it is ready. */
  public static ServerProcess start(int httpPort, Path dataDir, String... jvmOptions)
      throws IOException, InterruptedException {
    ServerProcess server = launch(httpPort, dataDir, List.of(), jvmOptions);
    server.awaitOutput("sluice server ready", 120);
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
    List<String> command = new ArrayList<>();
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
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    return new ServerProcess(process);
  }

  public String awaitOutput(String prefix, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      for (String line : output) {
        if (line.startsWith(prefix)) {
          return line;
        }
      }
      if (!process.isAlive()) {
        throw new AssertionError("server exited with " + process.exitValue() + ": " + output);
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no line starting with '" + prefix + "' in: " + output);
  }

  public long pid() {
    return process.pid();
  }

  public List<String> output() {
    return output;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** SIGSTOP: the process freezes as a hung or partitioned machine would, sockets left open. */
  public void pause() throws IOException, InterruptedException {
    signal("STOP");
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
