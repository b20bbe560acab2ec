package io.sluice.server.logging;

import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** A named logger: a disabled level costs one comparison, an enabled one formats and writes. */
final class ServerLogger extends LegacyAbstractLogger {
  private static final long serialVersionUID = 1L;

  private final int threshold;
  private final transient LogOutput output;

  /**
   * @param threshold the least severe level written, as {@link Level#toInt()}, or {@link
   *     LogLevels#OFF}
   */
  ServerLogger(String name, int threshold, LogOutput output) {
    this.name = name;
    this.threshold = threshold;
    this.output = output;
  }

  @Override
  public boolean isTraceEnabled() {
    return Level.TRACE.toInt() >= threshold;
  }

  @Override
  public boolean isDebugEnabled() {
    return Level.DEBUG.toInt() >= threshold;
  }

  @Override
  public boolean isInfoEnabled() {
    return Level.INFO.toInt() >= threshold;
  }

  @Override
  public boolean isWarnEnabled() {
    return Level.WARN.toInt() >= threshold;
  }

  @Override
  public boolean isErrorEnabled() {
    return Level.ERROR.toInt() >= threshold;
  }

  @Override
  protected String getFullyQualifiedCallerName() {
    return null;
  }

  @Override
  protected void handleNormalizedLoggingCall(
      Level level, Marker marker, String pattern, Object[] arguments, Throwable throwable) {
    output.write(
        new LogLine(
            System.currentTimeMillis(),
            level,
            Thread.currentThread().getName(),
            name,
            String.valueOf(MessageFormatter.basicArrayFormat(pattern, arguments)),
            throwable,
            marker != null && marker.contains(LogLine.CONSOLE_ONLY)));
  }
}
