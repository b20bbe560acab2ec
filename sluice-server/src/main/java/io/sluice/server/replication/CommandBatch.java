package io.sluice.server.replication;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The payload of one Raft entry: the commands of several submitters, each tagged with the name of
 * the state it is for, plus who proposed the batch so that the proposing node can hand the outcomes
 * back to its submitters.
 *
 * <pre>
 * byte  format version (1)
 * long  proposer id      random per replicator instance; outcomes are routed only on a match
 * long  batch sequence   per proposer, increasing
 * int   command count
 * count times:
 *   byte   state name length (unsigned), then the name in UTF-8
 *   int    command length, then the command bytes
 * </pre>
 *
 * All numbers are big-endian. The proposer fields never influence what a state does, so applying
 * the log stays deterministic on every replica.
 */
final class CommandBatch {
  static final byte FORMAT_VERSION = 1;
  static final int HEADER_BYTES = 1 + 8 + 8 + 4;
  static final int MAX_STATE_NAME_BYTES = 255;

  private CommandBatch() {}

  /** Bytes one command adds to a batch. */
  static int frameBytes(byte[] stateName, int commandLength) {
    return 1 + stateName.length + 4 + commandLength;
  }

  static byte[] encode(long proposerId, long sequence, List<Submission> submissions) {
    int size = HEADER_BYTES;
    for (Submission submission : submissions) {
      size += frameBytes(submission.stateName(), submission.command().length);
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    out.put(FORMAT_VERSION).putLong(proposerId).putLong(sequence).putInt(submissions.size());
    for (Submission submission : submissions) {
      out.put((byte) submission.stateName().length).put(submission.stateName());
      out.putInt(submission.command().length).put(submission.command());
    }
    return out.array();
  }

  /** Reads a batch in place: state names and commands are views into the entry, not copies. */
  static Reader read(ByteBuffer entry) {
    return new Reader(entry.slice());
  }

  /** The entry is not a batch this code wrote: a newer format or a damaged log. */
  static final class MalformedBatchException extends RuntimeException {
    MalformedBatchException(String message) {
      super(message);
    }
  }

  /** Walks the commands of one batch; call {@link #next()} before each command. */
  static final class Reader {
    private final ByteBuffer entry;
    private final long proposerId;
    private final long sequence;
    private final int count;
    private int read;
    private ByteBuffer stateName;
    private ByteBuffer command;

    private Reader(ByteBuffer entry) {
      this.entry = entry;
      try {
        byte version = entry.get();
        if (version != FORMAT_VERSION) {
          throw new MalformedBatchException(
              "batch format version " + version + " is not " + FORMAT_VERSION);
        }
        this.proposerId = entry.getLong();
        this.sequence = entry.getLong();
        this.count = entry.getInt();
      } catch (BufferUnderflowException e) {
        throw new MalformedBatchException("batch shorter than its header");
      }
      if (count < 0) {
        throw new MalformedBatchException("negative command count " + count);
      }
    }

    long proposerId() {
      return proposerId;
    }

    long sequence() {
      return sequence;
    }

    int count() {
      return count;
    }

    /** Moves to the next command; false after the last one. */
    boolean next() {
      if (read == count) {
        if (entry.hasRemaining()) {
          throw new MalformedBatchException(entry.remaining() + " bytes after the last command");
        }
        return false;
      }
      try {
        int nameLength = Byte.toUnsignedInt(entry.get());
        stateName = take(nameLength);
        int commandLength = entry.getInt();
        if (commandLength < 0) {
          throw new MalformedBatchException("negative command length " + commandLength);
        }
        command = take(commandLength);
      } catch (BufferUnderflowException e) {
        throw new MalformedBatchException("batch ends inside command " + read + " of " + count);
      }
      read++;
      return true;
    }

    /** The current command's state name, UTF-8, read-only. */
    ByteBuffer stateName() {
      return stateName;
    }

    /** The current command, read-only. */
    ByteBuffer command() {
      return command;
    }

    private ByteBuffer take(int length) {
      if (length > entry.remaining()) {
        throw new MalformedBatchException(
            "a field of " + length + " bytes overruns the batch (" + entry.remaining() + " left)");
      }
      ByteBuffer field = entry.slice(entry.position(), length).asReadOnlyBuffer();
      entry.position(entry.position() + length);
      return field;
    }
  }
}
