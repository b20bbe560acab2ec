package io.sluice.server.logging;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.slf4j.event.Level;

/**
 * One logged event and its two forms: the console's plain line and the file's JSON line.
 *
 * <p>The file's format, one JSON object per line (UTF-8), members in this order:
 *
 * <pre>{@code
 * {"time":"2026-12-01T10:40:00.123Z","level":"WARN","thread":"vert.x-eventloop-thread-0",
 *  "logger":"io.sluice.server.protocol.ClientFaultLog","message":"...","error":"java.io..."}
 * }</pre>
 *
 * {@code time} is UTC with milliseconds; {@code error} (the stack trace, as Java prints it) only
 * when there is one. A message or stack trace past {@value #MAX_CHARS} characters is cut, ending in
 * {@code "... (cut)"}, so one event can never make a huge line.
 *
 * @param consoleOnly the event carries the {@link #CONSOLE_ONLY} marker: a secret shown to the
 *     operator once (the generated admin password), never written to the file
 */
record LogLine(
    long millis,
    Level level,
    String thread,
    String logger,
    String message,
    Throwable throwable,
    boolean consoleOnly) {
  /** The name of the SLF4J marker that keeps an event out of the file. */
  static final String CONSOLE_ONLY = "CONSOLE_ONLY";

  static final int MAX_CHARS = 16_384;

  private static final DateTimeFormatter CONSOLE_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS");
  private static final DateTimeFormatter FILE_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  /** As slf4j-simple printed it before: {@code time [thread] LEVEL ShortName - message}. */
  String console() {
    StringBuilder line = new StringBuilder(96 + message.length());
    line.append(
            CONSOLE_TIME.format(
                LocalDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneId.systemDefault())))
        .append(" [")
        .append(thread)
        .append("] ")
        .append(level)
        .append(' ')
        .append(logger, logger.lastIndexOf('.') + 1, logger.length())
        .append(" - ")
        .append(message)
        .append(System.lineSeparator());
    if (throwable != null) {
      line.append(stackTrace(throwable));
    }
    return line.toString();
  }

  /** The JSON line, with its newline. */
  String json() {
    StringBuilder line = new StringBuilder(160 + message.length());
    line.append("{\"time\":\"").append(FILE_TIME.format(Instant.ofEpochMilli(millis))).append('"');
    line.append(",\"level\":\"").append(level).append('"');
    member(line, "thread", thread);
    member(line, "logger", logger);
    member(line, "message", message);
    if (throwable != null) {
      member(line, "error", stackTrace(throwable));
    }
    return line.append("}\n").toString();
  }

  private static void member(StringBuilder line, String name, String value) {
    line.append(",\"").append(name).append("\":\"");
    int end = Math.min(value.length(), MAX_CHARS);
    if (end < value.length() && Character.isHighSurrogate(value.charAt(end - 1))) {
      end--; // never half a character
    }
    for (int i = 0; i < end; i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> line.append("\\\"");
        case '\\' -> line.append("\\\\");
        case '\n' -> line.append("\\n");
        case '\r' -> line.append("\\r");
        case '\t' -> line.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x2028 || c == 0x2029) {
            line.append(String.format("\\u%04x", (int) c));
          } else {
            line.append(c);
          }
        }
      }
    }
    if (value.length() > MAX_CHARS) {
      line.append("... (cut)");
    }
    line.append('"');
  }

  private static String stackTrace(Throwable throwable) {
    StringWriter out = new StringWriter();
    throwable.printStackTrace(new PrintWriter(out));
    return out.toString();
  }
}
