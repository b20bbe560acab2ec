package io.sluice.server.replication;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sluice's own snapshot file: every state's section, then a CRC32C over all of it. Format 2, the
 * one written:
 *
 * <pre>
 * long   magic "SLUICESN"
 * int    format version (2)
 * long   term, long index      of the last log entry the snapshot contains
 * int    section count
 * int    CRC32C                of the 32 header bytes before it
 * count times:
 *   UTF  state name            (DataOutput.writeUTF)
 *   int  CRC32C                of the name's UTF bytes, length included
 *   chunks: int length > 0, then that many bytes, then their CRC32C; an int 0 ends the section
 * long   content length        bytes before this field
 * int    CRC32C                of those bytes
 * </pre>
 *
 * Format 1 (still read) is the same without the header, name and chunk checksums.
 *
 * <p>Sections are chunked so a state streams any amount of data without this class knowing its size
 * in advance, and so a loader can skip a section it does not know and tell when a state read too
 * little or too much. A file is written to a temporary name, fsynced, renamed atomically and the
 * directory fsynced, so a crash leaves either the whole file or none.
 *
 * <p>Two writers of one snapshot never meet: each writes a temporary file of its own ({@code
 * <name>.<random>.tmp}, created new) and holds a lock on it until it is renamed, so a writer never
 * truncates, renames or has deleted another's file ({@link #deleteIfAbandoned}). Both may then
 * rename onto the same name, each an intact snapshot of the same position. That happens when Ratis
 * writes its snapshot on stop while an in-process restart takes its own (see {@link
 * RatisReplicator#restart}), or when Ratis's own trigger races a requested snapshot.
 *
 * <p>No byte a checksum has not vouched for reaches a state: a damaged snapshot is refused, and a
 * damaged length can never make a state allocate what the file never held. Format 2 is checked and
 * loaded in one read: each chunk is checked before the state reads it, and the whole file's
 * checksum at the end. Damage found part-way leaves the states it reached partly loaded, which
 * {@link #load(Path, Position, Map, Set)} reports so the caller can reload or refuse them. Format 1
 * has no chunk checksums, so it is {@linkplain #verify verified} in full before it is loaded.
 */
final class SnapshotFile {
  private static final Logger log = LoggerFactory.getLogger(SnapshotFile.class);

  static final long MAGIC = 0x534C55494345534EL; // "SLUICESN"
  static final int FORMAT_VERSION = 2;
  private static final int FIRST_FORMAT = 1;
  private static final int HEADER_BYTES = 8 + 4 + 8 + 8 + 4;
  private static final int MAX_SECTIONS = 1 << 16;
  private static final int TRAILER_BYTES = 8 + 4;
  private static final int CHUNK_BYTES = 64 << 10;
  private static final String TEMP_SUFFIX = ".tmp";

  /** Which log position a snapshot file holds. */
  record Position(long term, long index) {}

  private SnapshotFile() {}

  /**
   * Writes the states' snapshot durably to {@code target}: temp file, fsync, atomic rename, fsync
   * of the directory. On failure nothing is left under {@code target}'s name.
   */
  static void write(Path target, Position position, Collection<ReplicatedState> states)
      throws IOException {
    Path temp =
        target.resolveSibling(
            target.getFileName()
                + "."
                + Long.toHexString(ThreadLocalRandom.current().nextLong())
                + TEMP_SUFFIX);
    // Outside the clean-up below: a name that exists already is another writer's file.
    FileChannel channel =
        FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    try (channel) {
      channel.lock(); // held until the channel closes, after the rename
      ChecksummingOutputStream checksummed =
          new ChecksummingOutputStream(
              new BufferedOutputStream(Channels.newOutputStream(channel), CHUNK_BYTES));
      DataOutputStream out = new DataOutputStream(checksummed);
      ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
      header.putLong(MAGIC).putInt(FORMAT_VERSION).putLong(position.term());
      header.putLong(position.index()).putInt(states.size());
      out.write(header.array());
      out.writeInt(crcOf(header.array(), HEADER_BYTES));
      for (ReplicatedState state : states) {
        byte[] name = utf(state.name());
        out.write(name);
        out.writeInt(crcOf(name, name.length));
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
      // Renamed while still locked, so a clean-up never takes it for a crash's leftover.
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    fsyncDirectory(target.getParent());
  }

  /** Whether {@code file} is named as the temporary file of a snapshot being written. */
  static boolean isTemporary(Path file) {
    String name = file.getFileName().toString();
    return name.startsWith("snapshot-") && name.endsWith(TEMP_SUFFIX);
  }

  /**
   * Deletes a snapshot's temporary file left by a writer that died (a crash), unless a writer still
   * holds it (in this process or another). Returns whether it was deleted.
   */
  static boolean deleteIfAbandoned(Path temp) throws IOException {
    try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
      if (channel.tryLock() == null) {
        return false; // another process writes it
      }
      Files.delete(temp);
      return true;
    } catch (OverlappingFileLockException e) {
      return false; // a writer in this process holds it
    } catch (NoSuchFileException e) {
      return false; // renamed or deleted meanwhile
    }
  }

  /**
   * Reads the whole file and checks its length, checksum, magic and version; returns the position
   * it holds. Throws {@link CorruptSnapshotException} when any check fails, and a plain {@link
   * IOException} for an intact file of a format newer than this version reads (never set aside as
   * damaged: a reader stops at a format it does not know).
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
      if (version < FIRST_FORMAT) {
        throw new CorruptSnapshotException(file + ": snapshot format version " + version);
      }
      if (version > FORMAT_VERSION) {
        // Intact (its checksum holds) and newer: written by a later version. Not damage.
        throw new IOException(
            file
                + ": snapshot format "
                + version
                + " is newer than this server reads (up to "
                + FORMAT_VERSION
                + "); downgrades are not supported");
      }
      return new Position(header.getLong(12), header.getLong(20));
    }
  }

  /** {@link #load(Path, Position, Map, Set)} of any position, not told which states it reached. */
  static Position load(Path file, Map<String, ReplicatedState> statesByName) throws IOException {
    return load(file, null, statesByName, new HashSet<>());
  }

  /**
   * Checks the file and loads it into the states; returns the position it holds. A section for a
   * state not given here is skipped with a warning (a state that no longer exists); a state without
   * a section keeps what it has. Throws {@link CorruptSnapshotException} when the file is damaged
   * or does not hold {@code expected}; then the states named in {@code reached} were handed part of
   * it and must be reloaded from another snapshot before they are used. Fails with a plain {@link
   * IOException} if a state does not read its section exactly, or the file is of a newer format.
   *
   * @param expected the position the file must hold (its name says so), or null for any
   * @param reached receives the name of each state handed any of this file
   */
  static Position load(
      Path file, Position expected, Map<String, ReplicatedState> statesByName, Set<String> reached)
      throws IOException {
    int version;
    try (DataInputStream peek = new DataInputStream(Files.newInputStream(file))) {
      peek.skipNBytes(8);
      version = peek.readInt();
    } catch (EOFException e) {
      throw new CorruptSnapshotException(file + ": too short for a snapshot header");
    }
    if (version != FORMAT_VERSION) {
      // Format 1 (no chunk checksums): checked in full before a state sees any of it. A newer or
      // unknown format is told apart from damage by the same check.
      expect(file, expected, verify(file));
      return loadChecked(file, expected, statesByName, reached, FIRST_FORMAT);
    }
    try {
      return loadChecked(file, expected, statesByName, reached, FORMAT_VERSION);
    } catch (CorruptSnapshotException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      // A state failed on bytes each chunk checksum vouched for, or the file ended early: damage
      // to the framing around the chunks (which only the whole file's checksum tells) or a state's
      // own fault. Rare, so the file is read once more to tell which.
      verify(file);
      throw e;
    }
  }

  private static void expect(Path file, Position expected, Position found)
      throws CorruptSnapshotException {
    if (expected != null && !expected.equals(found)) {
      throw new CorruptSnapshotException(file + ": holds " + found + ", its name says " + expected);
    }
  }

  /**
   * Reads the sections into the states. Format 2 checks the header (and that it holds {@code
   * expected}) before any section, each name and each chunk before use, and the whole content's
   * checksum and length at the end; format 1 files were verified before.
   */
  private static Position loadChecked(
      Path file,
      Position expected,
      Map<String, ReplicatedState> statesByName,
      Set<String> reached,
      int version)
      throws IOException {
    boolean checked = version >= 2;
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      InputStream raw = new BufferedInputStream(Channels.newInputStream(channel), CHUNK_BYTES);
      ChecksummingInputStream content = new ChecksummingInputStream(raw);
      DataInputStream in = new DataInputStream(content);
      byte[] header = new byte[HEADER_BYTES];
      in.readFully(header);
      ByteBuffer fields = ByteBuffer.wrap(header);
      if (fields.getLong(0) != MAGIC || fields.getInt(8) != version) {
        throw new CorruptSnapshotException(file + ": bad magic or version");
      }
      if (checked && in.readInt() != crcOf(header, HEADER_BYTES)) {
        throw new CorruptSnapshotException(file + ": header checksum mismatch");
      }
      Position position = new Position(fields.getLong(12), fields.getLong(20));
      expect(file, expected, position);
      int sections = fields.getInt(28);
      if (sections < 0 || sections > MAX_SECTIONS) {
        throw new CorruptSnapshotException(file + ": " + sections + " sections");
      }
      Set<String> loaded = new HashSet<>();
      for (int i = 0; i < sections; i++) {
        String name = checked ? readCheckedName(in, file) : in.readUTF();
        SectionInputStream section = new SectionInputStream(in, file, checked);
        ReplicatedState state = statesByName.get(name);
        if (state == null) {
          long skipped = section.skipRest();
          log.warn("{}: skipped the section of unknown state '{}' ({} bytes)", file, name, skipped);
          continue;
        }
        reached.add(name);
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
      if (checked) {
        long contentLength = content.count();
        int crc = (int) content.crc();
        // The trailer is not part of what it checks: read around the checksumming stream.
        DataInputStream trailer = new DataInputStream(raw);
        if (trailer.readLong() != contentLength
            || trailer.readInt() != crc
            || contentLength + TRAILER_BYTES != size) {
          throw new CorruptSnapshotException(
              file + ": the content's length or CRC32C does not match its trailer");
        }
      }
      for (String name : statesByName.keySet()) {
        if (!loaded.contains(name)) {
          log.info("{}: no section for state '{}'; it starts empty", file, name);
        }
      }
      return position;
    }
  }

  private static String readCheckedName(DataInputStream in, Path file) throws IOException {
    int length = in.readUnsignedShort();
    byte[] utf = new byte[2 + length];
    utf[0] = (byte) (length >>> 8);
    utf[1] = (byte) length;
    in.readFully(utf, 2, length);
    if (in.readInt() != crcOf(utf, utf.length)) {
      throw new CorruptSnapshotException(file + ": a section name's checksum does not match");
    }
    return new DataInputStream(new ByteArrayInputStream(utf)).readUTF();
  }

  private static byte[] utf(String name) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new DataOutputStream(bytes).writeUTF(name);
    return bytes.toByteArray();
  }

  private static int crcOf(byte[] bytes, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, length);
    return (int) crc.getValue();
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

  /** Counts and checksums what is read through it. */
  private static final class ChecksummingInputStream extends FilterInputStream {
    private final CRC32C crc = new CRC32C();
    private long count;

    ChecksummingInputStream(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        crc.update(b);
        count++;
      }
      return b;
    }

    @Override
    public int read(byte[] bytes, int offset, int length) throws IOException {
      int n = in.read(bytes, offset, length);
      if (n > 0) {
        crc.update(bytes, offset, n);
        count += n;
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      // Skipped bytes must be checksummed too: read them.
      byte[] discard = new byte[(int) Math.min(n, 8192)];
      long skipped = 0;
      while (skipped < n) {
        int read = read(discard, 0, (int) Math.min(discard.length, n - skipped));
        if (read < 0) {
          break;
        }
        skipped += read;
      }
      return skipped;
    }

    @Override
    public boolean markSupported() {
      return false;
    }

    long count() {
      return count;
    }

    long crc() {
      return crc.getValue();
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
        target.writeInt(crcOf(chunk, used));
        used = 0;
      }
    }

    private void ensureOpen() throws IOException {
      if (finished) {
        throw new IOException("snapshot section already finished");
      }
    }
  }

  /**
   * Reads one section's chunks; reports end of stream at the section's end. Checked (format 2), it
   * reads each chunk whole and compares its checksum before handing out any of it.
   */
  private static final class SectionInputStream extends InputStream {
    private final DataInputStream source;
    private final Path file;
    private final byte[] chunk;
    private int chunkOffset;
    private int leftInChunk;
    private boolean ended;

    SectionInputStream(DataInputStream source, Path file, boolean checked) {
      this.source = source;
      this.file = file;
      this.chunk = checked ? new byte[CHUNK_BYTES] : null;
    }

    @Override
    public int read() throws IOException {
      if (!nextChunkIfNeeded()) {
        return -1;
      }
      leftInChunk--;
      return chunk != null ? chunk[chunkOffset++] & 0xFF : source.readUnsignedByte();
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
      if (chunk != null) {
        System.arraycopy(chunk, chunkOffset, bytes, offset, n);
        chunkOffset += n;
      } else {
        source.readFully(bytes, offset, n);
      }
      leftInChunk -= n;
      return n;
    }

    /** Reads to the end of the section; returns how many bytes that skipped. */
    long skipRest() throws IOException {
      long skipped = 0;
      while (nextChunkIfNeeded()) {
        if (chunk == null) {
          source.skipNBytes(leftInChunk);
        }
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
        } else if (chunk != null) {
          source.readFully(chunk, 0, length);
          if (source.readInt() != crcOf(chunk, length)) {
            throw new CorruptSnapshotException(
                file + ": a section chunk's checksum does not match");
          }
          chunkOffset = 0;
        }
        leftInChunk = length;
      }
      return leftInChunk > 0;
    }
  }
}
