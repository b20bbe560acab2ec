package io.sluice.server.logging;

import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * sluice-server's logging: the SLF4J provider that the server's classes and its libraries (Ratis,
 * Vert.x, Netty) log through. Every line goes to the console (stderr, one plain line as before)
 * and, once the launcher {@linkplain #writeToFile opens one}, to a file of JSON lines under the
 * data directory, rotated by size with a bounded number of files ({@link RotatingLogFile}). Levels:
 * {@code levels.properties} beside this class (INFO; Ratis, Netty, Vert.x and gRPC at WARN), each
 * overridable with the system property {@code sluice.log.level.<logger prefix>} (and {@code
 * sluice.log.level} for the rest).
 *
 * <p>A provider of our own rather than Logback: a few small classes give the one format, the size
 * bound and a writer that never makes a logging event loop wait for the disk, with no configuration
 * language to learn, and the JVMs that run the server beside the official clients (tests,
 * benchmarks) keep whatever those bring untouched.
 *
 * <p>SLF4J finds its provider with {@link java.util.ServiceLoader} once per JVM, so the output is
 * the one global of the server: a logging backend is global by SLF4J's design. Everything else in
 * the server stays an instance.
 */
public final class ServerLogging implements SLF4JServiceProvider {
  /** The SLF4J API this provider implements. */
  public static final String REQUESTED_API_VERSION = "2.0.99";

  /** Where every logger writes; the file is added and removed by the launcher. */
  static final LogOutput OUTPUT = new LogOutput();

  private ILoggerFactory loggerFactory;
  private IMarkerFactory markerFactory;
  private MDCAdapter mdcAdapter;

  /** For {@link java.util.ServiceLoader}. */
  public ServerLogging() {}

  @Override
  public void initialize() {
    markerFactory = new BasicMarkerFactory();
    mdcAdapter = new BasicMDCAdapter();
    loggerFactory = new ServerLoggerFactory(LogLevels.load(System.getProperties()), OUTPUT);
  }

  @Override
  public ILoggerFactory getLoggerFactory() {
    return loggerFactory;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markerFactory;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdcAdapter;
  }

  @Override
  public String getRequestedApiVersion() {
    return REQUESTED_API_VERSION;
  }

  /**
   * From now on, also writes every line to {@code file} as JSON, rotated at {@code maxFileBytes}
   * with at most {@code maxFiles} files in all (the current one and {@code file.1} ... ). Replaces
   * the file written so far, if any. Fails when the file cannot be opened, writing nothing.
   */
  public static void writeToFile(Path file, long maxFileBytes, int maxFiles) throws IOException {
    OUTPUT.file(RotatingLogFile.open(file, maxFileBytes, maxFiles));
  }

  /** Writes what is queued for the file, then stops writing to it. */
  public static void closeFile() {
    OUTPUT.file(null);
  }
}
