package io.sluice.server.replication;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sluice's own snapshot file: every state's section, then a CRC32C over all of it.
 *
 * <pre>
 * long   magic "SLUICESN"
 * int    format version (1)
 * long   term, long index      of the last log entry the snapshot contains
 * int    section count
 * count times:
 *   UTF  state name            (DataOutput.writeUTF)
 *   chunks: int length > 0, then that many bytes; an int 0 ends the section
 * long   content length        bytes before this field
 * int    CRC32C                of those bytes
 * </pre>
 *
 * Sections are chunked so a state streams any amount of data without this class knowing its size in
 * advance, and so a loader can skip a section it does not know and tell when a state read too
 * little or too much. A file is written to a temporary name, fsynced, renamed atomically and the
 * directory fsynced, so a crash leaves either the whole file or none. A file is {@linkplain #verify
 * verified} in full before any of it reaches a state: a damaged snapshot is refused, never loaded.
 */
final class SnapshotFile {
  private static final Logger log = LoggerFactory.getLogger(SnapshotFile.class);

  static final long MAGIC = 0x534C55494345534EL; // "SLUICESN"
  static final int FORMAT_VERSION = 1;
  private static final int HEADER_BYTES = 8 + 4 + 8 + 8 + 4;
  private static final int TRAILER_BYTES = 8 + 4;
  private static final int CHUNK_BYTES = 64 << 10;

  /** Which log position a snapshot file holds. */
  record Position(long term, long index) {}

  private SnapshotFile() {}

  /**
   * Writes the states' snapshot durably to {@code target}: temp file, fsync, atomic rename, fsync
   * of the directory. On failure nothing is left under {@code target}'s name.
   */
  static void write(Path target, Position position, Collection<ReplicatedState> states)
      throws IOException {
    Path temp = target.resolveSibling(target.getFileName() + ".tmp");
    try (FileChannel channel =
        FileChannel.open(
            temp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      ChecksummingOutputStream checksummed =
          new ChecksummingOutputStream(
              new BufferedOutputStream(Channels.newOutputStream(channel), CHUNK_BYTES));
      DataOutputStream out = new DataOutputStream(checksummed);
      out.writeLong(MAGIC);
      out.writeInt(FORMAT_VERSION);
      out.writeLong(position.term());
      out.writeLong(position.index());
      out.writeInt(states.size());
      for (ReplicatedState state : states) {
        out.writeUTF(state.name());
        SectionOutputStream section = new SectionOutputStream(out);
        DataOutputStream stateOut = new DataOutputStream(section);
        state.writeSnapshot(stateOut);
        stateOut.flush();
        section.finish();
      }
      out.flush();
      long contentLength = checksummed.count();
      int crc = (int) checksummed.crc();
      // The trailer is not part of what it checks, so it bypasses the checksumming stream.
      DataOutputStream trailer = new DataOutputStream(checksummed.unchecked());
      trailer.writeLong(contentLength);
      trailer.writeInt(crc);
      trailer.flush();
      channel.force(true);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    fsyncDirectory(target.getParent());
  }

  /**
   * Reads the whole file and checks its length, checksum, magic and version; returns the position
   * it holds. Throws {@link CorruptSnapshotException} when any check fails.
   */
  static Position verify(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      if (size < HEADER_BYTES + 4 + TRAILER_BYTES) {
        throw new CorruptSnapshotException(file + ": " + size + " bytes is too short");
      }
      ByteBuffer trailer = ByteBuffer.allocate(TRAILER_BYTES);
      readFully(channel, trailer, size - TRAILER_BYTES);
      long contentLength = trailer.getLong(0);
      int expectedCrc = trailer.getInt(8);
      if (contentLength != size - TRAILER_BYTES) {
        throw new CorruptSnapshotException(
            file + ": trailer says " + contentLength + " content bytes, file has " + size);
      }
      CRC32C crc = new CRC32C();
      ByteBuffer buffer = ByteBuffer.allocate(CHUNK_BYTES);
      for (long offset = 0; offset < contentLength; ) {
        buffer.clear().limit((int) Math.min(CHUNK_BYTES, contentLength - offset));
        readFully(channel, buffer, offset);
        buffer.flip();
        crc.update(buffer);
        offset += buffer.limit();
      }
      if ((int) crc.getValue() != expectedCrc) {
        throw new CorruptSnapshotException(
            file
                + ": CRC32C mismatch (stored "
                + Integer.toHexString(expectedCrc)
                + ", computed "
                + Integer.toHexString((int) crc.getValue())
                + ")");
      }
      ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
      readFully(channel, header, 0);
      if (header.getLong(0) != MAGIC) {
        throw new CorruptSnapshotException(file + ": not a Sluice snapshot (bad magic)");
      }
      int version = header.getInt(8);
      if (version != FORMAT_VERSION) {
        throw new CorruptSnapshotException(
            file + ": snapshot format version " + version + " is not " + FORMAT_VERSION);
      }
      return new Position(header.getLong(12), header.getLong(20));
    }
  }

  /**
   * Loads a {@linkplain #verify verified} file into the states. A section for a state not given
   * here is skipped with a warning (a state that no longer exists); a state without a section keeps
   * what it has. Fails if a state does not read its section exactly.
   */
  static Position load(Path file, Map<String, ReplicatedState> statesByName) throws IOException {
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(file), CHUNK_BYTES))) {
      if (in.readLong() != MAGIC || in.readInt() != FORMAT_VERSION) {
        throw new CorruptSnapshotException(file + ": bad magic or version");
      }
      Position position = new Position(in.readLong(), in.readLong());
      int sections = in.readInt();
      if (sections < 0) {
        throw new CorruptSnapshotException(file + ": negative section count");
      }
      Set<String> loaded = new HashSet<>();
      for (int i = 0; i < sections; i++) {
        String name = in.readUTF();
        SectionInputStream section = new SectionInputStream(in, file);
        ReplicatedState state = statesByName.get(name);
        if (state == null) {
          long skipped = section.skipRest();
          log.warn("{}: skipped the section of unknown state '{}' ({} bytes)", file, name, skipped);
          continue;
        }
        state.loadSnapshot(new DataInputStream(section));
        long unread = section.skipRest();
        if (unread > 0) {
          throw new IOException(
              file
                  + ": state '"
                  + name
                  + "' left "
                  + unread
                  + " bytes of its section unread; its loadSnapshot does not match writeSnapshot");
        }
        loaded.add(name);
      }
      for (String name : statesByName.keySet()) {
        if (!loaded.contains(name)) {
          log.info("{}: no section for state '{}'; it starts empty", file, name);
        }
      }
      return position;
    }
  }

  static void fsyncDirectory(Path directory) throws IOException {
    // Makes the rename itself durable; without it a power loss may bring back the old name.
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  private static void readFully(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    while (buffer.hasRemaining()) {
      int read = channel.read(buffer, position + buffer.position());
      if (read < 0) {
        throw new EOFException("unexpected end of snapshot file");
      }
    }
  }

  /** Counts and checksums what passes through; {@link #unchecked()} writes around it. */
  private static final class ChecksummingOutputStream extends FilterOutputStream {
    private final CRC32C crc = new CRC32C();
    private long count;

    ChecksummingOutputStream(OutputStream out) {
      super(out);
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      crc.update(b);
      count++;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      out.write(bytes, offset, length);
      crc.update(bytes, offset, length);
      count += length;
    }

    long count() {
      return count;
    }

    long crc() {
      return crc.getValue();
    }

    OutputStream unchecked() {
      return out;
    }
  }

  /**
   * Buffers a state's bytes into chunks of up to {@value #CHUNK_BYTES}; {@link #finish()} writes
   * the last chunk and the terminator. Closing it (a state may close its stream) does not close the
   * file.
   */
  private static final class SectionOutputStream extends OutputStream {
    private final DataOutputStream target;
    private final byte[] chunk = new byte[CHUNK_BYTES];
    private int used;
    private boolean finished;

    SectionOutputStream(DataOutputStream target) {
      this.target = target;
    }

    @Override
    public void write(int b) throws IOException {
      ensureOpen();
      if (used == chunk.length) {
        writeChunk();
      }
      chunk[used++] = (byte) b;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      ensureOpen();
      while (length > 0) {
        if (used == chunk.length) {
          writeChunk();
        }
        int n = Math.min(length, chunk.length - used);
        System.arraycopy(bytes, offset, chunk, used, n);
        used += n;
        offset += n;
        length -= n;
      }
    }

    void finish() throws IOException {
      if (!finished) {
        writeChunk();
        target.writeInt(0);
        finished = true;
      }
    }

    private void writeChunk() throws IOException {
      if (used > 0) {
        target.writeInt(used);
        target.write(chunk, 0, used);
        used = 0;
      }
    }

    private void ensureOpen() throws IOException {
      if (finished) {
        throw new IOException("snapshot section already finished");
      }
    }
  }

  /** Reads one section's chunks; reports end of stream at the section's end. */
  private static final class SectionInputStream extends InputStream {
    private final DataInputStream source;
    private final Path file;
    private int leftInChunk;
    private boolean ended;

    SectionInputStream(DataInputStream source, Path file) {
      this.source = source;
      this.file = file;
    }

    @Override
    public int read() throws IOException {
      if (!nextChunkIfNeeded()) {
        return -1;
      }
      leftInChunk--;
      return source.readUnsignedByte();
    }

    @Override
    public int read(byte[] bytes, int offset, int length) throws IOException {
      if (length == 0) {
        return 0;
      }
      if (!nextChunkIfNeeded()) {
        return -1;
      }
      int n = Math.min(length, leftInChunk);
      source.readFully(bytes, offset, n);
      leftInChunk -= n;
      return n;
    }

    /** Reads to the end of the section; returns how many bytes that skipped. */
    long skipRest() throws IOException {
      long skipped = 0;
      while (nextChunkIfNeeded()) {
        source.skipNBytes(leftInChunk);
        skipped += leftInChunk;
        leftInChunk = 0;
      }
      return skipped;
    }

    private boolean nextChunkIfNeeded() throws IOException {
      while (leftInChunk == 0 && !ended) {
        int length = source.readInt();
        if (length < 0 || length > CHUNK_BYTES) {
          throw new CorruptSnapshotException(file + ": bad section chunk length " + length);
        }
        if (length == 0) {
          ended = true;
        }
        leftInChunk = length;
      }
      return leftInChunk > 0;
    }
  }
}
