package io.sluice.e2e;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP port an application under test listens on, read from the line its web server logs once
 * it listens. The applications are started with {@code --server.port=0}: the kernel gives each a
 * port no one else holds, in the same bind that keeps it, so two tests running side by side never
 * race for one (a port found free beforehand and handed over is free only until someone else binds
 * it).
 *
 * <p>Why the log line: every Spring Boot generation the tests run (3.2, 3.5, 4.0) logs it at INFO,
 * with the same words, for each embedded server (Tomcat, Jetty, Undertow, Reactor Netty for the
 * gateway), and it needs nothing in the application. Spring Boot's own port file writer would need
 * a listener registered through {@code context.listener.classes}, which Boot 3.4 removed. So an
 * application whose {@code org.springframework.boot} logging is set below INFO cannot be started
 * this way: {@link #await} says so when the line never comes. The plain Dubbo 3.1 test application
 * prints the same words.
 */
public final class WebServerPort {
  /**
   * "Tomcat started on port 41653 (http) with context path '/'", "Netty started on port 8080
   * (http)", "ports 8080 (http), 8443 (https)" (the first), Boot 2's "port(s): 8080 (http)"; the
   * digits must be followed by something, so a line still being written is not read short.
   */
  private static final Pattern STARTED =
      Pattern.compile(
          "\\b(?:Tomcat|Jetty|Undertow|Netty|Dubbo31App) started on ports?(?:\\(s\\))?:? (\\d+)(?=\\D)");

  private WebServerPort() {}

  /** The port in the first such line of {@code output} from byte {@code from} on, if any yet. */
  public static OptionalInt find(Path output, long from) throws IOException {
    if (!Files.exists(output)) {
      return OptionalInt.empty();
    }
    String text;
    try (FileChannel channel = FileChannel.open(output, StandardOpenOption.READ)) {
      long size = channel.size();
      if (size <= from) {
        return OptionalInt.empty();
      }
      ByteBuffer bytes = ByteBuffer.allocate((int) Math.min(Integer.MAX_VALUE - 8, size - from));
      while (bytes.hasRemaining() && channel.read(bytes, from + bytes.position()) > 0) {
        // read on
      }
      text = new String(bytes.array(), 0, bytes.position(), StandardCharsets.UTF_8);
    }
    Matcher matcher = STARTED.matcher(text);
    return matcher.find()
        ? OptionalInt.of(Integer.parseInt(matcher.group(1)))
        : OptionalInt.empty();
  }

  /**
   * Waits until {@code process} has logged its port into {@code output} (from byte {@code from},
   * where this run's output starts), and returns it; fails with the output if the process exits
   * first or {@code timeout} passes.
   */
  public static int await(Process process, Path output, long from, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      OptionalInt port = find(output, from);
      if (port.isPresent()) {
        return port.getAsInt();
      }
      if (!process.isAlive()) {
        // It may have logged the line just before it exited.
        port = find(output, from);
        if (port.isPresent()) {
          return port.getAsInt();
        }
        throw new AssertionError(
            "application exited with "
                + process.exitValue()
                + " before its web server said which port it listens on:\n"
                + tail(output, from));
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "application did not log \"... started on port N\" within "
                + timeout
                + " (is org.springframework.boot logging below INFO?):\n"
                + tail(output, from));
      }
      Thread.sleep(100);
    }
  }

  private static String tail(Path output, long from) {
    try {
      byte[] all = Files.readAllBytes(output);
      int start = (int) Math.max(Math.min(from, all.length), all.length - 8_000L);
      return new String(all, start, all.length - start, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no output: " + e + ")";
    }
  }
}
