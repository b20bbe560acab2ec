package io.sluice.server.logging;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;

/** One {@link ServerLogger} per name, its threshold fixed when it is made. */
final class ServerLoggerFactory implements ILoggerFactory {
  private final LogLevels levels;
  private final LogOutput output;
  private final ConcurrentMap<String, Logger> loggers = new ConcurrentHashMap<>();

  ServerLoggerFactory(LogLevels levels, LogOutput output) {
    this.levels = levels;
    this.output = output;
  }

  @Override
  public Logger getLogger(String name) {
    return loggers.computeIfAbsent(name, n -> new ServerLogger(n, levels.thresholdOf(n), output));
  }
}
