package io.sluice.server.logging;

/**
 * Where every logger writes: each line to the console (stderr, looked up per line so a redirected
 * {@code System.err} is followed), and, when the launcher opened one, to the JSON file.
 *
 * <p>Concurrency: any thread writes; {@code file} is one volatile reference, swapped by the
 * launcher.
 */
final class LogOutput {
  private volatile RotatingLogFile file;

  void write(LogLine line) {
    System.err.print(line.console());
    RotatingLogFile current = file;
    if (current != null && !line.consoleOnly()) {
      current.offer(line.json());
    }
  }

  /**
   * Writes to {@code next} from now on (null: no file); the previous file is drained and closed.
   */
  void file(RotatingLogFile next) {
    RotatingLogFile previous = file;
    file = next;
    if (previous != null) {
      previous.close();
    }
  }
}
