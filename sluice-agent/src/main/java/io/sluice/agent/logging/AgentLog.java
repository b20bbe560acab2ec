package io.sluice.agent.logging;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Locale;

/**
 * The agent's own log: a plain file, written synchronously (the agent logs little: start, rule
 * changes, failures), never the application's logging framework, whose configuration and class
 * loading the agent must not disturb. Falls back to stderr when the file cannot be opened.
 *
 * <p>Thread-safe: lines are written under the instance's lock.
 */
public final class AgentLog {
  /** Levels, most severe first. */
  public enum Level {
    ERROR,
    WARN,
    INFO,
    DEBUG;

    /** Parses a level name; unknown names give INFO. */
    public static Level parse(String name) {
      if (name == null) {
        return INFO;
      }
      try {
        return valueOf(name.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        return INFO;
      }
    }
  }

  private final Level threshold;
  private final Writer out;
  private final String where;

  private AgentLog(Level threshold, Writer out, String where) {
    this.threshold = threshold;
    this.out = out;
    this.where = where;
  }

  /** A log appending to {@code file}, or to stderr if it cannot be opened. */
  public static AgentLog toFile(Path file, Level threshold) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Writer writer =
          Files.newBufferedWriter(
              file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      return new AgentLog(threshold, writer, file.toAbsolutePath().toString());
    } catch (IOException | RuntimeException e) {
      return toStream(System.err, threshold);
    }
  }

  public static AgentLog toStream(PrintStream stream, Level threshold) {
    return new AgentLog(
        threshold, new PrintWriter(stream, true, StandardCharsets.UTF_8), "standard error");
  }

  /** Where the lines go, for the start-up line. */
  public String where() {
    return where;
  }

  public boolean isEnabled(Level level) {
    return level.ordinal() <= threshold.ordinal();
  }

  public void error(String message, Throwable cause) {
    log(Level.ERROR, message, cause);
  }

  public void warn(String message) {
    log(Level.WARN, message, null);
  }

  public void warn(String message, Throwable cause) {
    log(Level.WARN, message, cause);
  }

  public void info(String message) {
    log(Level.INFO, message, null);
  }

  public void debug(String message) {
    log(Level.DEBUG, message, null);
  }

  private void log(Level level, String message, Throwable cause) {
    if (!isEnabled(level)) {
      return;
    }
    StringBuilder line = new StringBuilder(96 + message.length());
    line.append(Instant.now())
        .append(' ')
        .append(level)
        .append(" [")
        .append(Thread.currentThread().getName())
        .append("] ")
        .append(message)
        .append(System.lineSeparator());
    if (cause != null) {
      StringWriter trace = new StringWriter();
      cause.printStackTrace(new PrintWriter(trace));
      line.append(trace);
    }
    synchronized (this) {
      try {
        out.write(line.toString());
        out.flush();
      } catch (IOException e) {
        // Nowhere left to report it; the agent keeps working without its log.
      }
    }
  }
}
