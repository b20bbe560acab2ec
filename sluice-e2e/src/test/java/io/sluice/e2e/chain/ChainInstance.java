package io.sluice.e2e.chain;

import io.sluice.e2e.WebServerPort;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One application of the chain in its own JVM: {@code gateway}, {@code a}, {@code b} or {@code c},
 * in the base lane or another. Every run listens on an HTTP port the kernel gives it ({@code
 * --server.port=0}), read from its log ({@link WebServerPort}), so a restart may move it; a Dubbo
 * provider keeps the Dubbo port it was given across restarts. Every run's output is appended to one
 * file.
 *
 * <p>Concurrency: the process and the run's port are guarded by this object; {@link #awaitPort}
 * waits without holding it, so a shutdown hook can still kill.
 */
public final class ChainInstance {
  private final String app;
  private final String lane;
  private final int dubboPort;
  private final List<String> command;
  private final Path output;
  private Process process;

  /** Where the current run's output starts in {@link #output}. */
  private long runOutputStart;

  /** The HTTP port of the current run, or of the last one; 0 until a run has said it. */
  private int port;

  /**
   * @param dubboPort the port a Dubbo provider exports on, given by the chain (Dubbo has no port 0,
   *     and its own choice, the first free port from 20880, races between providers started at
   *     once); 0 for an application that exports none
   */
  ChainInstance(
      String app, String lane, List<String> commandBeforePort, Path output, int dubboPort) {
    this.app = app;
    this.lane = lane;
    this.dubboPort = dubboPort;
    this.command = new ArrayList<>(commandBeforePort);
    this.command.add("--server.port=0");
    if (dubboPort != 0) {
      this.command.add("--dubbo.protocol.port=" + dubboPort);
    }
    this.output = output;
  }

  /** The application's name, its service in the registry: gateway, a, b or c. */
  public String app() {
    return app;
  }

  /** Its lane, {@code base} for none. */
  public String lane() {
    return lane;
  }

  /** How it names itself in a path, e.g. {@code b[gray]}. */
  public String label() {
    return app + "[" + lane + "]";
  }

  /**
   * The HTTP port of its current run (of the last one, once stopped), as its web server logged it;
   * fails before a run has logged it ({@link #awaitPort}).
   */
  public synchronized int port() {
    if (port == 0) {
      throw new IllegalStateException(label() + " has not said its port yet");
    }
    return port;
  }

  /** The port its Dubbo services are exported on; 0 if it exports none. */
  public int dubboPort() {
    return dubboPort;
  }

  public synchronized long pid() {
    if (process == null) {
      throw new IllegalStateException(label() + " is not running");
    }
    return process.pid();
  }

  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** Everything it printed, over all its runs. */
  public String output() {
    try {
      return Files.readString(output, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no output: " + e + ")";
    }
  }

  /**
   * The agent's own log over all its runs ({@code sluice-agent-<pid>.log} files, beside the output:
   * the chain passes the instance's directory as the agent's {@code log.dir}); empty without the
   * agent.
   */
  public String agentLog() {
    StringBuilder all = new StringBuilder();
    try (var files = Files.list(output.getParent())) {
      for (Path log :
          files
              .filter(p -> p.getFileName().toString().matches("sluice-agent-\\d+\\.log"))
              .sorted()
              .toList()) {
        all.append(Files.readString(log, StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      return "(no agent log: " + e + ")";
    }
    return all.toString();
  }

  synchronized void start() throws IOException {
    if (isRunning()) {
      return;
    }
    runOutputStart = Files.exists(output) ? Files.size(output) : 0;
    port = 0;
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
            .directory(output.getParent().toFile())
            .start();
  }

  /**
   * Waits until the current run has logged its HTTP port, up to {@code timeout}, and returns it;
   * fails with its output if it exits first.
   */
  int awaitPort(Duration timeout) throws IOException, InterruptedException {
    Process run;
    long from;
    synchronized (this) {
      if (port != 0) {
        return port;
      }
      if (process == null) {
        throw new IllegalStateException(label() + " is not running");
      }
      run = process;
      from = runOutputStart;
    }
    int logged;
    try {
      logged = WebServerPort.await(run, output, from, timeout);
    } catch (AssertionError e) {
      throw new IllegalStateException(label() + ": " + e.getMessage(), e);
    }
    synchronized (this) {
      if (process == run) {
        port = logged;
      }
    }
    return logged;
  }

  /** Asks it to stop (SIGTERM) without waiting; {@link #stop} waits. */
  synchronized void signalStop() {
    if (process != null) {
      process.destroy();
    }
  }

  /** Stops it as an orchestrator would (SIGTERM: Spring deregisters and shuts down). */
  synchronized void stop() throws InterruptedException {
    if (process == null) {
      return;
    }
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
    process = null;
  }

  /** Kills it (SIGKILL): no deregistration, the registry notices the lost connection. */
  synchronized void kill() throws InterruptedException {
    if (process == null) {
      return;
    }
    process.destroyForcibly().waitFor();
    process = null;
  }

  /** Fails with its output if it has exited on its own. */
  synchronized void checkAlive() {
    if (process != null && !process.isAlive()) {
      throw new IllegalStateException(
          label() + " exited with " + process.exitValue() + "; its output:\n" + tail(output()));
    }
  }

  static String tail(String text) {
    int max = 8_000;
    return text.length() <= max ? text : "…" + text.substring(text.length() - max);
  }

  @Override
  public synchronized String toString() {
    return port == 0 ? label() : label() + " on port " + port;
  }
}
