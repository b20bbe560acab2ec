package io.sluice.server.replication;

import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * How a state's command says which format it is in, so that a server reads every command any
 * earlier version wrote to the log (the evolution rule in docs/architecture.md).
 *
 * <pre>
 * byte 0          marker: a versioned command
 * byte version    the state's command format, 2 and up
 * ...             the command, as that format lays it out
 * </pre>
 *
 * Commands written before formats were versioned start directly with their op code, which no state
 * ever numbered 0: they are format {@value #UNVERSIONED}. A state writes only its newest format and
 * reads all of them; one newer than it knows stops replication ({@link UnknownFormatException}).
 */
public final class CommandFormat {
  /** The format of commands written before they carried a version. */
  public static final int UNVERSIONED = 1;

  private static final byte MARKER = 0;

  private CommandFormat() {}

  /** Starts a command in format {@code version} (2 to 255). */
  public static void writeHeader(DataOutput out, int version) throws IOException {
    if (version <= UNVERSIONED || version > 255) {
      throw new IllegalArgumentException("command format must be 2 to 255, was " + version);
    }
    out.writeByte(MARKER);
    out.writeByte(version);
  }

  /**
   * The format of the command at the buffer's position; moves the position past the header, or
   * leaves it at the op code of an unversioned command.
   *
   * @param newest the newest format the caller reads
   * @throws IOException for an empty command, or a marker without a version
   * @throws UnknownFormatException for a format above {@code newest}
   */
  public static int readHeader(ByteBuffer command, int newest) throws IOException {
    if (!command.hasRemaining()) {
      throw new IOException("empty command");
    }
    if (command.get(command.position()) != MARKER) {
      return UNVERSIONED;
    }
    if (command.remaining() < 2) {
      throw new IOException("command ends inside its format header");
    }
    command.get();
    int format = Byte.toUnsignedInt(command.get());
    if (format > newest) {
      throw new UnknownFormatException(
          "command format "
              + format
              + " is newer than "
              + newest
              + ", the newest this server reads");
    }
    return format;
  }
}
