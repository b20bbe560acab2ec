package io.sluice.e2e.chain;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One application of the chain in its own JVM: {@code gateway}, {@code a}, {@code b} or {@code c},
 * in the base lane or another. It keeps its ports (HTTP, and Dubbo's for a Dubbo provider) across
 * restarts, and appends every run's output to one file.
 */
public final class ChainInstance {
  private final String app;
  private final String lane;
  private final int port;
  private final int dubboPort;
  private final List<String> command;
  private final Path output;
  private Process process;

  ChainInstance(
      String app, String lane, List<String> commandBeforePort, Path output, boolean dubboProvider)
      throws IOException {
    this.app = app;
    this.lane = lane;
    this.port = freePort();
    // Dubbo's own choice (the first free port from 20880) races between providers started at once.
    this.dubboPort = dubboProvider ? freePort() : 0;
    this.command = new ArrayList<>(commandBeforePort);
    this.command.add("--server.port=" + port);
    if (dubboProvider) {
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

  public int port() {
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

  synchronized void start() throws IOException {
    if (isRunning()) {
      return;
    }
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
            .directory(output.getParent().toFile())
            .start();
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
  public String toString() {
    return label() + " on port " + port;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
