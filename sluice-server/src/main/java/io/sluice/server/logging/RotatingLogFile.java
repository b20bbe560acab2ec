package io.sluice.server.logging;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.event.Level;

/**
 * A log file of JSON lines, rotated by size: when a line would take the file past {@code
 * maxFileBytes}, {@code file.(n-1)} becomes {@code file.n}, ..., {@code file} becomes {@code
 * file.1}, and what would become {@code file.maxFiles} is deleted. So the log never holds more than
 * {@code maxFiles} files of at most {@code maxFileBytes} each (a single longer line gets a file of
 * its own). The newest lines are in {@code file}; after a restart it is appended to.
 *
 * <p>Lines are queued, at most {@value #QUEUE_LINES}, and written by one daemon thread, so whoever
 * logs (an event loop) never waits for the disk. A line that finds the queue full is dropped and
 * counted; the count is written as a line of its own once there is room. A write that fails (a full
 * disk) drops the line the same way and is tried again with the next one.
 *
 * <p>Concurrency: any thread offers; only the writer thread touches the file.
 */
final class RotatingLogFile implements AutoCloseable {
  static final int QUEUE_LINES = 8_192;
  static final long MIN_FILE_BYTES = 4_096;
  static final int MAX_FILES = 100;

  /** The mark {@link #close} queues; compared by identity, so no logged line can be it. */
  @SuppressWarnings("StringOperationCanBeSimplified")
  private static final String STOP = new String("stop");

  private final Path file;
  private final long maxFileBytes;
  private final int maxFiles;
  private final BlockingQueue<String> queue;
  private final AtomicLong dropped = new AtomicLong();
  private final Thread writer;
  private OutputStream out;
  private long size;
  private boolean failing; // said once on the console until a write succeeds again

  private RotatingLogFile(Path file, long maxFileBytes, int maxFiles, int queueLines)
      throws IOException {
    if (maxFileBytes < MIN_FILE_BYTES) {
      throw new IllegalArgumentException(
          "a log file must be allowed at least " + MIN_FILE_BYTES + " bytes, was " + maxFileBytes);
    }
    if (maxFiles < 1 || maxFiles > MAX_FILES) {
      throw new IllegalArgumentException(
          "the log must keep 1 to " + MAX_FILES + " files, was " + maxFiles);
    }
    this.file = file.toAbsolutePath();
    this.maxFileBytes = maxFileBytes;
    this.maxFiles = maxFiles;
    this.queue = new ArrayBlockingQueue<>(queueLines);
    Path parent = this.file.getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    openForAppend();
    this.writer = new Thread(this::run, "sluice-log-writer");
    writer.setDaemon(true);
  }

  /** Opens (or appends to) {@code file} and starts its writer thread. */
  static RotatingLogFile open(Path file, long maxFileBytes, int maxFiles) throws IOException {
    RotatingLogFile log = new RotatingLogFile(file, maxFileBytes, maxFiles, QUEUE_LINES);
    log.writer.start();
    return log;
  }

  /** For tests: no writer thread; {@link #writeQueued} writes what is queued on the caller. */
  static RotatingLogFile openUnstarted(Path file, long maxFileBytes, int maxFiles, int queueLines)
      throws IOException {
    return new RotatingLogFile(file, maxFileBytes, maxFiles, queueLines);
  }

  /** Queues a line (ending in a newline); drops and counts it when the queue is full. */
  void offer(String line) {
    if (!queue.offer(line)) {
      dropped.incrementAndGet();
    }
  }

  /** Lines dropped and not yet reported in the file. */
  long dropped() {
    return dropped.get();
  }

  private void run() {
    try {
      while (true) {
        String line = queue.poll(1, TimeUnit.SECONDS);
        if (line == STOP) {
          writeDropped();
          break;
        }
        if (line != null) {
          write(line);
        }
        if (!writeQueued()) {
          break;
        }
        flush();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeStream();
    }
  }

  /** Writes every queued line and the drop count; false once the stop mark was met. */
  boolean writeQueued() {
    String line;
    boolean stopped = false;
    while ((line = queue.poll()) != null) {
      if (line == STOP) {
        stopped = true;
        break;
      }
      write(line);
    }
    writeDropped();
    if (stopped) {
      flush();
    }
    return !stopped;
  }

  /** Writes how many lines were dropped since it was last written, if any. */
  private void writeDropped() {
    long lost = dropped.getAndSet(0);
    if (lost > 0) {
      write(
          new LogLine(
                  System.currentTimeMillis(),
                  Level.WARN,
                  Thread.currentThread().getName(),
                  RotatingLogFile.class.getName(),
                  lost + " log lines were dropped: the log file could not keep up",
                  null,
                  false)
              .json());
    }
  }

  private void write(String line) {
    byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
    try {
      if (size > 0 && size + bytes.length > maxFileBytes) {
        rotate();
      }
      out.write(bytes);
      size += bytes.length;
    } catch (IOException e) {
      dropped.incrementAndGet();
      failed(e);
    }
  }

  private void failed(IOException e) {
    if (!failing) {
      failing = true;
      System.err.println(
          "sluice: cannot write the log file "
              + file
              + " ("
              + e
              + "); lines are dropped and"
              + " counted until it can");
    }
  }

  private void rotate() throws IOException {
    closeStream();
    Files.deleteIfExists(numbered(maxFiles - 1));
    for (int n = maxFiles - 2; n >= 1; n--) {
      Path from = numbered(n);
      if (Files.exists(from)) {
        Files.move(from, numbered(n + 1), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    if (maxFiles > 1) {
      Files.move(file, numbered(1), StandardCopyOption.REPLACE_EXISTING);
    } else {
      Files.deleteIfExists(file);
    }
    openForAppend();
  }

  /** {@code file.n}; {@code file} itself for 0. */
  Path numbered(int n) {
    return n == 0 ? file : file.resolveSibling(file.getFileName() + "." + n);
  }

  private void openForAppend() throws IOException {
    out =
        new BufferedOutputStream(
            Files.newOutputStream(
                file,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND,
                StandardOpenOption.WRITE),
            65_536);
    size = Files.size(file);
  }

  private void flush() {
    try {
      out.flush();
      failing = false;
    } catch (IOException e) {
      failed(e);
    }
  }

  private void closeStream() {
    try {
      out.close();
    } catch (IOException e) {
      // Nothing left to write to.
    }
  }

  /** Writes what is queued, then closes the file (waits at most 5 s for the writer). */
  @Override
  public void close() {
    if (!writer.isAlive()) {
      writeQueued();
      closeStream();
      return;
    }
    try {
      if (queue.offer(STOP, 5, TimeUnit.SECONDS)) {
        writer.join(5_000);
      } else {
        writer.interrupt(); // the disk does not keep up: stop without the rest
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
