package io.sluice.server.logging;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.slf4j.event.Level;

/**
 * The threshold of each logger: the level of the longest logger-name prefix configured for it, else
 * the default. Read once, from {@code levels.properties} in the jar and then the system properties
 * {@code sluice.log.level} (the default) and {@code sluice.log.level.<prefix>}, which win; a value
 * that names no level is ignored with one line on the console. Immutable.
 *
 * <p>A threshold is a level's {@link Level#toInt()} or {@link #OFF}, above every level, for a
 * library logger whose lines the server replaces with its own (SLF4J has no level for "none").
 */
final class LogLevels {
  static final String PROPERTY = "sluice.log.level";

  /** The threshold of a logger that writes nothing: above {@link Level#ERROR}. */
  static final int OFF = Integer.MAX_VALUE;

  private final int defaultLevel;
  private final Map<String, Integer> byPrefix;

  LogLevels(int defaultLevel, Map<String, Integer> byPrefix) {
    this.defaultLevel = defaultLevel;
    this.byPrefix = Map.copyOf(byPrefix);
  }

  static LogLevels load(Properties system) {
    Properties merged = new Properties();
    try (InputStream in = LogLevels.class.getResourceAsStream("levels.properties")) {
      if (in != null) {
        merged.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the server's log levels", e);
    }
    for (String name : system.stringPropertyNames()) {
      if (name.equals(PROPERTY) || name.startsWith(PROPERTY + ".")) {
        merged.setProperty(name, system.getProperty(name));
      }
    }
    int defaultLevel = Level.INFO.toInt();
    Map<String, Integer> byPrefix = new TreeMap<>();
    for (String name : merged.stringPropertyNames()) {
      Integer level = parse(name, merged.getProperty(name));
      if (level == null) {
        continue;
      }
      if (name.equals(PROPERTY)) {
        defaultLevel = level;
      } else if (name.startsWith(PROPERTY + ".")) {
        byPrefix.put(name.substring(PROPERTY.length() + 1), level);
      }
    }
    return new LogLevels(defaultLevel, byPrefix);
  }

  /** The threshold, or null (said once on the console) when {@code value} names none. */
  private static Integer parse(String name, String value) {
    String upper = value.trim().toUpperCase(Locale.ROOT);
    if (upper.equals("OFF")) {
      return OFF;
    }
    try {
      return Level.valueOf(upper).toInt();
    } catch (IllegalArgumentException e) {
      System.err.println(
          "sluice: ignoring "
              + name
              + "="
              + value
              + ": a log level is one of TRACE, DEBUG, INFO, WARN, ERROR, OFF");
      return null;
    }
  }

  /** The least severe level {@code logger} writes, as {@link Level#toInt()}, or {@link #OFF}. */
  int thresholdOf(String logger) {
    int found = defaultLevel;
    int longest = -1;
    for (Map.Entry<String, Integer> entry : byPrefix.entrySet()) {
      String prefix = entry.getKey();
      boolean matches =
          logger.equals(prefix)
              || (logger.startsWith(prefix) && logger.charAt(prefix.length()) == '.');
      if (matches && prefix.length() > longest) {
        longest = prefix.length();
        found = entry.getValue();
      }
    }
    return found;
  }
}
