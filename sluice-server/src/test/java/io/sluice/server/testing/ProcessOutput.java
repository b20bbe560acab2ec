package io.sluice.server.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The lines a child process prints (its stdout, with stderr redirected into it), read as they come
 * by a daemon thread so the process never blocks on a full pipe.
 */
public final class ProcessOutput {
  private final Process process;
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final Thread reader;

  private ProcessOutput(Process process, String threadName) {
    this.process = process;
    this.reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                  lines.add(line);
                }
              } catch (IOException ignored) {
                // The process went away; what was read is in `lines`.
              }
            },
            threadName);
    reader.setDaemon(true);
  }

  /** Starts reading {@code process}'s output on a daemon thread named {@code threadName}. */
  public static ProcessOutput of(Process process, String threadName) {
    ProcessOutput output = new ProcessOutput(process, threadName);
    output.reader.start();
    return output;
  }

  /** Every line read so far (a live, thread-safe view). */
  public List<String> lines() {
    return lines;
  }

  /**
   * The first line starting with {@code prefix}, waiting up to {@code seconds} for it; fails with
   * the output when it does not come or the process exits first.
   */
  public String awaitLine(String prefix, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      for (String line : lines) {
        if (line.startsWith(prefix)) {
          return line;
        }
      }
      // The process may have ended with lines still in the pipe: fail once they are all read.
      if (!process.isAlive() && !reader.isAlive() && !contains(prefix)) {
        throw new AssertionError(
            "exited with "
                + process.exitValue()
                + " before a line starting with '"
                + prefix
                + "':\n"
                + String.join("\n", lines));
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "no line starting with '"
                + prefix
                + "' within "
                + seconds
                + " s:\n"
                + String.join("\n", lines));
      }
      Thread.sleep(20);
    }
  }

  private boolean contains(String prefix) {
    return lines.stream().anyMatch(line -> line.startsWith(prefix));
  }
}
