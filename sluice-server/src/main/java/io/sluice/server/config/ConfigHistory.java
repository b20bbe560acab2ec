package io.sluice.server.config;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every publish and delete, kept on disk in append-only segment files with a small index in memory,
 * so history costs heap per entry (two longs), not per byte of content.
 *
 * <p>History is derived from the replicated log, not a second source of truth. Ids come from the
 * config store's replicated counter, so replaying the log after a crash produces the same ids and
 * {@link #append} skips the ones already on disk. Appends are buffered; {@link #sync} (called when
 * a snapshot is taken, before the log up to it may be purged) makes them durable.
 *
 * <p>On disk: {@code history-<ordinal>.log} segment files. A segment starts with {@code long magic
 * "SLUICEHS", int format}, then records {@code int length, int crc32c(payload), payload}. A torn
 * record at the tail of the newest segment (a crash mid-write) is cut off on open.
 *
 * <ul>
 *   <li>Format {@value #FORMAT} (written): payload {@code long id, long created, long modified,
 *       byte opType, key, byte target, tag, content, md5, ConfigMeta} ({@link ConfigCodec}).
 *   <li>Format 1, segments without the header (read only): payload {@code long id, long created,
 *       long modified, byte opType, key, publishType, tag, content, md5, type, appName, srcUser,
 *       srcIp, encryptedDataKey}.
 * </ul>
 *
 * A segment is written in one format only: a format 1 segment found at start is not appended to;
 * the first new entry opens a new segment.
 *
 * <p>Concurrency: appends come from the apply thread, reads from API threads; the index and the
 * write buffer are guarded by {@code this}, record reads happen outside the lock with positional
 * reads.
 */
final class ConfigHistory implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ConfigHistory.class);

  static final long DEFAULT_SEGMENT_BYTES = 64L * 1024 * 1024;
  private static final long SEGMENT_MAX_AGE_MILLIS = TimeUnit.DAYS.toMillis(1);
  private static final int HEADER_BYTES = 8;

  /** The format records are written in. */
  static final int FORMAT = 2;

  private static final long SEGMENT_MAGIC = 0x534C554943454853L; // "SLUICEHS"
  private static final int SEGMENT_HEADER_BYTES = 8 + 4;
  private static final int WRITE_BUFFER_BYTES = 256 * 1024;
  private static final int OFFSET_BITS = 40;
  private static final long OFFSET_MASK = (1L << OFFSET_BITS) - 1;

  private final Path dir;
  private final long segmentBytes;
  private final TreeMap<Integer, Segment> segments = new TreeMap<>();
  private final Map<ConfigKey, IdList> idsByKey = new HashMap<>();
  private final ByteBuffer writeBuffer = ByteBuffer.allocate(WRITE_BUFFER_BYTES);
  private Segment active;

  /** positions[i] locates the record of id {@code positionsBase + i}; 0 means "not kept". */
  private long[] positions = new long[1024];

  private long positionsBase = 1;
  private long lastId;

  private ConfigHistory(Path dir, long segmentBytes) {
    this.dir = dir;
    this.segmentBytes = segmentBytes;
  }

  static ConfigHistory open(Path dir, long segmentBytes) {
    try {
      Files.createDirectories(dir);
      ConfigHistory history = new ConfigHistory(dir, segmentBytes);
      history.load();
      return history;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open config history in " + dir, e);
    }
  }

  /** The highest id appended so far (0 for none). */
  synchronized long lastId() {
    return lastId;
  }

  /** Appends an entry; entries whose id is not above {@link #lastId} are already kept. */
  synchronized void append(ConfigHistoryEntry entry) {
    if (entry.id() <= lastId) {
      return;
    }
    byte[] record = encode(entry);
    try {
      if (active == null
          || active.format != FORMAT
          || active.size + writeBuffer.position() + record.length > segmentBytes
          || (active.firstMillis > 0
              && entry.modifiedMillis() - active.firstMillis > SEGMENT_MAX_AGE_MILLIS)) {
        roll();
      }
      long offset = active.size + writeBuffer.position();
      if (record.length > writeBuffer.remaining()) {
        flush();
      }
      if (record.length > writeBuffer.capacity()) {
        writeFully(active.channel, ByteBuffer.wrap(record), active.size);
        active.size += record.length;
      } else {
        writeBuffer.put(record);
      }
      if (active.firstMillis == 0) {
        active.firstMillis = entry.modifiedMillis();
      }
      active.newestMillis = Math.max(active.newestMillis, entry.modifiedMillis());
      index(entry.id(), entry.key(), position(active.ordinal, offset));
    } catch (IOException e) {
      // History is secondary to the config itself: losing an entry must not stop applying.
      log.error("could not write history entry {} for {}", entry.id(), entry.key(), e);
    }
  }

  /** Makes every appended entry durable. */
  synchronized void sync() {
    try {
      flush();
      if (active != null) {
        active.channel.force(false);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot sync config history", e);
    }
  }

  Page<ConfigHistoryEntry> list(ConfigKey key, int pageNumber, int pageSize) {
    long[] ids;
    synchronized (this) {
      IdList list = idsByKey.get(key);
      ids = list == null ? new long[0] : list.copyFrom(positionsBase);
    }
    int total = ids.length;
    int pages = pageSize <= 0 ? 0 : (total + pageSize - 1) / pageSize;
    List<ConfigHistoryEntry> items = new ArrayList<>();
    int start = (pageNumber - 1) * pageSize;
    for (int i = start; i < Math.min(total, start + pageSize) && i >= 0; i++) {
      get(ids[total - 1 - i]).ifPresent(items::add);
    }
    return new Page<>(total, pageNumber, pages, items);
  }

  Optional<ConfigHistoryEntry> get(long id) {
    Segment segment;
    long offset;
    synchronized (this) {
      long position = positionOf(id);
      if (position == 0) {
        return Optional.empty();
      }
      segment = segments.get((int) (position >>> OFFSET_BITS));
      offset = position & OFFSET_MASK;
      if (segment == null) {
        return Optional.empty();
      }
      if (segment == active && offset >= active.size) {
        try {
          flush();
        } catch (IOException e) {
          throw new UncheckedIOException("cannot flush config history", e);
        }
      }
    }
    try {
      return Optional.of(read(segment, offset));
    } catch (IOException e) {
      // The segment was purged while we read, or the record is damaged.
      return Optional.empty();
    }
  }

  /** The entry for the same config just before {@code id}, if kept. */
  Optional<ConfigHistoryEntry> previous(ConfigKey key, long id) {
    long previousId = 0;
    synchronized (this) {
      IdList list = idsByKey.get(key);
      if (list != null) {
        previousId = list.before(id, positionsBase);
      }
    }
    return previousId == 0 ? Optional.empty() : get(previousId);
  }

  /** Drops whole segments whose newest entry is older than the cutoff; never the active one. */
  synchronized int purgeOlderThan(long cutoffMillis) {
    int removed = 0;
    while (segments.size() > 1) {
      Segment oldest = segments.firstEntry().getValue();
      if (oldest == active || oldest.newestMillis >= cutoffMillis) {
        break;
      }
      segments.pollFirstEntry();
      closeQuietly(oldest.channel);
      try {
        Files.deleteIfExists(oldest.path);
      } catch (IOException e) {
        log.warn("could not delete history segment {}", oldest.path, e);
      }
      removed++;
    }
    if (removed > 0) {
      long newBase = segments.firstEntry().getValue().firstId;
      if (newBase > positionsBase) {
        int drop = (int) Math.min(newBase - positionsBase, positions.length);
        long[] kept = new long[Math.max(1024, positions.length - drop)];
        System.arraycopy(positions, drop, kept, 0, positions.length - drop);
        positions = kept;
        positionsBase = newBase;
      }
      idsByKey.values().removeIf(list -> list.dropBelow(positionsBase));
    }
    return removed;
  }

  @Override
  public synchronized void close() {
    try {
      flush();
    } catch (IOException e) {
      log.warn("could not flush config history on close", e);
    }
    for (Segment segment : segments.values()) {
      closeQuietly(segment.channel);
    }
    segments.clear();
    active = null;
  }

  private void load() throws IOException {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "history-*.log")) {
      stream.forEach(files::add);
    }
    files.sort(
        (a, b) ->
            Integer.compare(
                ordinalOf(a.getFileName().toString()), ordinalOf(b.getFileName().toString())));
    for (Path file : files) {
      int ordinal = ordinalOf(file.getFileName().toString());
      FileChannel channel =
          FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
      Segment segment = new Segment(ordinal, file, channel);
      segments.put(ordinal, segment);
      scan(segment);
      active = segment;
    }
  }

  /**
   * Reads a segment's format, indexes its records and cuts off a torn tail. Each record is read and
   * its checksum checked, but only the fields the index needs are decoded (the content, often most
   * of the bytes, is not turned into a string), into one buffer reused for every record.
   */
  private void scan(Segment segment) throws IOException {
    long fileSize = segment.channel.size();
    long offset = readFormat(segment, fileSize);
    ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
    ByteBuffer payload = ByteBuffer.allocate(4096);
    while (offset + HEADER_BYTES <= fileSize) {
      long id;
      long modified;
      ConfigKey key;
      int length;
      try {
        header.clear();
        readFully(segment.channel, header, offset);
        length = header.getInt(0);
        if (length <= 0
            || length > ConfigCodec.MAX_STRING_BYTES
            || offset + HEADER_BYTES + length > fileSize) {
          break;
        }
        if (payload.capacity() < length) {
          payload = ByteBuffer.allocate(Math.max(length, payload.capacity() * 2));
        }
        payload.clear().limit(length);
        readFully(segment.channel, payload, offset + HEADER_BYTES);
        CRC32C checksum = new CRC32C();
        checksum.update(payload.array(), 0, length);
        if ((int) checksum.getValue() != header.getInt(4)) {
          break;
        }
        // Both formats start id, created, modified, op, key.
        DataInputStream in =
            new DataInputStream(new ByteArrayInputStream(payload.array(), 0, length));
        id = in.readLong();
        in.readLong();
        modified = in.readLong();
        in.readByte();
        key = ConfigCodec.readKey(in);
      } catch (IOException damaged) {
        break;
      }
      if (segment.firstId == 0) {
        segment.firstId = id;
        segment.firstMillis = modified;
      }
      segment.newestMillis = Math.max(segment.newestMillis, modified);
      if (id > lastId) {
        index(id, key, position(segment.ordinal, offset));
      }
      offset += HEADER_BYTES + length;
    }
    if (offset < fileSize) {
      log.warn(
          "cutting {} damaged bytes from the end of history segment {}",
          fileSize - offset,
          segment.path);
      segment.channel.truncate(offset);
    }
    segment.size = offset;
  }

  /**
   * Sets the segment's format from its header and returns where its records start. A segment
   * without the header is format 1; an empty one, or one whose header a crash cut short, gets this
   * version's header (it holds no record yet).
   */
  private static long readFormat(Segment segment, long fileSize) throws IOException {
    ByteBuffer header = ByteBuffer.allocate(SEGMENT_HEADER_BYTES);
    readUpTo(segment.channel, header);
    header.flip();
    if (fileSize >= SEGMENT_HEADER_BYTES && header.getLong(0) == SEGMENT_MAGIC) {
      segment.format = header.getInt(8);
      if (segment.format < 2 || segment.format > FORMAT) {
        throw new IOException(
            segment.path + ": history format " + segment.format + " is not one this version reads");
      }
      return SEGMENT_HEADER_BYTES;
    }
    if (fileSize < SEGMENT_HEADER_BYTES && isMagicPrefix(header)) {
      segment.channel.truncate(0);
      writeSegmentHeader(segment.channel);
      segment.format = FORMAT;
      return SEGMENT_HEADER_BYTES;
    }
    segment.format = 1;
    return 0;
  }

  /**
   * Whether the bytes of a file shorter than a header begin like one. True for no bytes at all: a
   * file a crash left empty holds no record, whichever format it was meant for.
   */
  private static boolean isMagicPrefix(ByteBuffer header) {
    byte[] magic = ByteBuffer.allocate(8).putLong(SEGMENT_MAGIC).array();
    for (int i = 0; i < Math.min(header.limit(), 8); i++) {
      if (header.get(i) != magic[i]) {
        return false;
      }
    }
    return true;
  }

  private static void writeSegmentHeader(FileChannel channel) throws IOException {
    ByteBuffer header = ByteBuffer.allocate(SEGMENT_HEADER_BYTES);
    header.putLong(SEGMENT_MAGIC).putInt(FORMAT).flip();
    writeFully(channel, header, 0);
  }

  private void index(long id, ConfigKey key, long position) {
    if (lastId == 0) {
      // The first entry kept fixes where the position table starts.
      positionsBase = id;
    }
    long slot = id - positionsBase;
    if (slot < 0) {
      return;
    }
    while (slot >= positions.length) {
      long[] grown = new long[positions.length * 2];
      System.arraycopy(positions, 0, grown, 0, positions.length);
      positions = grown;
    }
    positions[(int) slot] = position;
    idsByKey.computeIfAbsent(key, k -> new IdList()).add(id);
    lastId = id;
  }

  private long positionOf(long id) {
    long slot = id - positionsBase;
    if (slot < 0 || slot >= positions.length || id > lastId) {
      return 0;
    }
    return positions[(int) slot];
  }

  private void roll() throws IOException {
    flush();
    int ordinal = active == null ? 1 : active.ordinal + 1;
    Path file = dir.resolve(String.format("history-%010d.log", ordinal));
    FileChannel channel =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    if (active != null) {
      active.channel.force(false);
    }
    writeSegmentHeader(channel);
    Segment segment = new Segment(ordinal, file, channel);
    segment.format = FORMAT;
    segment.size = SEGMENT_HEADER_BYTES;
    segment.firstId = lastId + 1;
    segments.put(ordinal, segment);
    active = segment;
  }

  private void flush() throws IOException {
    if (active == null || writeBuffer.position() == 0) {
      return;
    }
    writeBuffer.flip();
    int length = writeBuffer.remaining();
    writeFully(active.channel, writeBuffer, active.size);
    active.size += length;
    writeBuffer.clear();
  }

  private static long position(int ordinal, long offset) {
    // Offset 0 of ordinal 0 never occurs (ordinals start at 1), so 0 can mean "absent".
    return ((long) ordinal << OFFSET_BITS) | offset;
  }

  private static int ordinalOf(String fileName) {
    return Integer.parseInt(fileName.substring("history-".length(), fileName.length() - 4));
  }

  private static void writeFully(FileChannel channel, ByteBuffer buffer, long at)
      throws IOException {
    long position = at;
    while (buffer.hasRemaining()) {
      position += channel.write(buffer, position);
    }
  }

  /** Reads from the start of the file until the buffer is full or the file ends. */
  private static void readUpTo(FileChannel channel, ByteBuffer buffer) throws IOException {
    long position = 0;
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer, position);
      if (n < 0) {
        return;
      }
      position += n;
    }
  }

  private static void readFully(FileChannel channel, ByteBuffer buffer, long at)
      throws IOException {
    long position = at;
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer, position);
      if (n < 0) {
        throw new IOException("unexpected end of history segment");
      }
      position += n;
    }
  }

  private static ConfigHistoryEntry read(Segment segment, long offset) throws IOException {
    ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
    readFully(segment.channel, header, offset);
    int length = header.getInt(0);
    int crc = header.getInt(4);
    if (length <= 0 || length > ConfigCodec.MAX_STRING_BYTES) {
      throw new IOException("bad history record length " + length);
    }
    ByteBuffer payload = ByteBuffer.allocate(length);
    readFully(segment.channel, payload, offset + HEADER_BYTES);
    CRC32C checksum = new CRC32C();
    checksum.update(payload.array(), 0, length);
    if ((int) checksum.getValue() != crc) {
      throw new IOException("history record checksum mismatch at " + offset);
    }
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload.array()));
    return segment.format == 1 ? readFormatOne(in) : readRecord(in);
  }

  private static ConfigHistoryEntry readRecord(DataInputStream in) throws IOException {
    long id = in.readLong();
    long created = in.readLong();
    long modified = in.readLong();
    char op = (char) in.readByte();
    return new ConfigHistoryEntry(
        id,
        ConfigCodec.readKey(in),
        op,
        ConfigCodec.readTarget(in),
        ConfigCodec.readString(in),
        ConfigCodec.readString(in),
        ConfigCodec.readString(in),
        ConfigCodec.readMeta(in),
        created,
        modified);
  }

  /** A record of a segment without a header: only five of the metadata fields were kept. */
  private static ConfigHistoryEntry readFormatOne(DataInputStream in) throws IOException {
    long id = in.readLong();
    long created = in.readLong();
    long modified = in.readLong();
    char op = (char) in.readByte();
    ConfigKey key = ConfigCodec.readKey(in);
    String publishType = ConfigCodec.readString(in);
    ConfigTarget target = ConfigTarget.ofPublishType(publishType);
    if (target == null) {
      throw new IOException("unknown publish type " + publishType);
    }
    String tag = ConfigCodec.readString(in);
    String content = ConfigCodec.readString(in);
    String md5 = ConfigCodec.readString(in);
    ConfigMeta meta =
        ConfigMeta.builder()
            .type(ConfigCodec.readString(in))
            .appName(ConfigCodec.readString(in))
            .srcUser(ConfigCodec.readString(in))
            .srcIp(ConfigCodec.readString(in))
            .encryptedDataKey(ConfigCodec.readString(in))
            .build();
    return new ConfigHistoryEntry(id, key, op, target, tag, content, md5, meta, created, modified);
  }

  private static byte[] encode(ConfigHistoryEntry entry) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(0);
      out.writeInt(0);
      out.writeLong(entry.id());
      out.writeLong(entry.createdMillis());
      out.writeLong(entry.modifiedMillis());
      out.writeByte(entry.opType());
      ConfigCodec.writeKey(out, entry.key());
      ConfigCodec.writeTarget(out, entry.target());
      ConfigCodec.writeString(out, entry.tag());
      ConfigCodec.writeString(out, entry.content());
      ConfigCodec.writeString(out, entry.md5());
      ConfigCodec.writeMeta(out, entry.meta());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    byte[] record = bytes.toByteArray();
    int length = record.length - HEADER_BYTES;
    CRC32C checksum = new CRC32C();
    checksum.update(record, HEADER_BYTES, length);
    ByteBuffer.wrap(record).putInt(0, length).putInt(4, (int) checksum.getValue());
    return record;
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // Nothing useful to do; the file is being dropped or the store closed.
    }
  }

  private static final class Segment {
    final int ordinal;
    final Path path;
    final FileChannel channel;
    int format;
    long size;
    long firstId;
    long firstMillis;
    long newestMillis;

    Segment(int ordinal, Path path, FileChannel channel) {
      this.ordinal = ordinal;
      this.path = path;
      this.channel = channel;
    }
  }

  /** A growable array of ascending ids: the history of one config. */
  private static final class IdList {
    private long[] ids = new long[4];
    private int size;

    void add(long id) {
      if (size == ids.length) {
        long[] grown = new long[size * 2];
        System.arraycopy(ids, 0, grown, 0, size);
        ids = grown;
      }
      ids[size++] = id;
    }

    long[] copyFrom(long minId) {
      int start = firstAtLeast(minId);
      long[] copy = new long[size - start];
      System.arraycopy(ids, start, copy, 0, copy.length);
      return copy;
    }

    long before(long id, long minId) {
      int index = firstAtLeast(id) - 1;
      return index >= 0 && ids[index] >= minId ? ids[index] : 0;
    }

    /** Drops ids below minId; true when nothing is left. */
    boolean dropBelow(long minId) {
      int start = firstAtLeast(minId);
      if (start > 0) {
        System.arraycopy(ids, start, ids, 0, size - start);
        size -= start;
      }
      return size == 0;
    }

    private int firstAtLeast(long id) {
      int low = 0;
      int high = size;
      while (low < high) {
        int mid = (low + high) >>> 1;
        if (ids[mid] < id) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      return low;
    }
  }
}
