package io.sluice.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SnapshotFileTest {
  @TempDir Path dir;

  private final SnapshotFile.Position position = new SnapshotFile.Position(3, 1234);

  @Test
  void roundTripsEveryStatesSection() throws IOException {
    KeyValueState config = filled("config", 5_000);
    KeyValueState namespaces = filled("namespaces", 3);
    Path file = dir.resolve("snapshot-3-1234.bin");

    SnapshotFile.write(file, position, List.of(config, namespaces));
    KeyValueState configCopy = new KeyValueState("config");
    KeyValueState namespacesCopy = new KeyValueState("namespaces");

    assertThat(SnapshotFile.verify(file)).isEqualTo(position);
    assertThat(SnapshotFile.load(file, Map.of("config", configCopy, "namespaces", namespacesCopy)))
        .isEqualTo(position);
    assertThat(configCopy.size()).isEqualTo(5_000);
    assertThat(configCopy.get("key-4999")).isEqualTo("value-4999");
    assertThat(namespacesCopy.keys()).isEqualTo(namespaces.keys());
    assertThat(Files.list(dir)).as("no temp file left").containsExactly(file);
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.0, 0.1, 0.5, 0.9, 0.9999})
  void detectsAByteFlippedAnywhereInTheFile(double where) throws IOException {
    Path file = dir.resolve("snapshot-3-1234.bin");
    SnapshotFile.write(file, position, List.of(filled("config", 1_000)));
    long offset = (long) ((Files.size(file) - 1) * where);

    RatisReplicatorTest.flipByte(file, offset);

    assertThatThrownBy(() -> SnapshotFile.verify(file))
        .isInstanceOf(CorruptSnapshotException.class);
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.0, 0.01, 0.1, 0.5, 0.9, 0.9999})
  void refusesAByteFlippedAnywhereInTheOneReadThatLoadsIt(double where) throws IOException {
    Path file = dir.resolve("snapshot-3-1234.bin");
    SnapshotFile.write(file, position, List.of(filled("config", 20_000)));
    long offset = (long) ((Files.size(file) - 1) * where);

    RatisReplicatorTest.flipByte(file, offset);

    assertThatThrownBy(
            () ->
                SnapshotFile.load(
                    file, position, Map.of("config", new KeyValueState("config")), new HashSet<>()))
        .isInstanceOf(CorruptSnapshotException.class);
  }

  @Test
  void aDamagedChunkIsRefusedBeforeTheStateReadsAnyOfIt() throws IOException {
    Path file = dir.resolve("snapshot-3-1234.bin");
    byte[] written = new byte[200_000];
    new java.util.Random(7).nextBytes(written);
    SnapshotFile.write(file, position, List.of(new BytesState(written)));
    // Inside the second 64 KiB chunk of the only section.
    RatisReplicatorTest.flipByte(file, 100_000);
    BytesState loaded = new BytesState(null);
    Set<String> reached = new HashSet<>();

    assertThatThrownBy(() -> SnapshotFile.load(file, position, Map.of("bytes", loaded), reached))
        .isInstanceOf(CorruptSnapshotException.class)
        .hasMessageContaining("chunk's checksum");
    assertThat(reached).as("reported as partly loaded").containsExactly("bytes");
    assertThat(loaded.seen.size()).as("only the first chunk was read").isEqualTo(64 << 10);
    assertThat(loaded.seen.toByteArray())
        .as("and it was intact")
        .isEqualTo(java.util.Arrays.copyOf(written, 64 << 10));
  }

  @Test
  void refusesAFileWhoseNameSaysAnotherPositionBeforeLoadingAnything() throws IOException {
    Path file = dir.resolve("snapshot-3-1234.bin");
    SnapshotFile.write(file, position, List.of(filled("config", 10)));
    Set<String> reached = new HashSet<>();

    assertThatThrownBy(
            () ->
                SnapshotFile.load(
                    file,
                    new SnapshotFile.Position(3, 999),
                    Map.of("config", new KeyValueState("config")),
                    reached))
        .isInstanceOf(CorruptSnapshotException.class)
        .hasMessageContaining("its name says");
    assertThat(reached).isEmpty();
  }

  @Test
  void stillReadsFormatOneFiles() throws IOException {
    Path file = dir.resolve("snapshot-3-1234.bin");
    KeyValueState config = filled("config", 5_000);
    Files.write(file, formatOne(position, "config", config));
    KeyValueState copy = new KeyValueState("config");

    assertThat(SnapshotFile.verify(file)).isEqualTo(position);
    assertThat(SnapshotFile.load(file, position, Map.of("config", copy), new HashSet<>()))
        .isEqualTo(position);
    assertThat(copy.keys()).isEqualTo(config.keys());

    RatisReplicatorTest.flipByte(file, Files.size(file) / 2);
    Set<String> reached = new HashSet<>();
    assertThatThrownBy(
            () ->
                SnapshotFile.load(
                    file, position, Map.of("config", new KeyValueState("config")), reached))
        .isInstanceOf(CorruptSnapshotException.class);
    assertThat(reached).as("format 1 is checked in full before loading").isEmpty();
  }

  @Test
  void refusesAnIntactFileOfANewerFormatWithoutCallingItDamaged() throws IOException {
    Path file = dir.resolve("snapshot-3-1234.bin");
    byte[] bytes = formatOne(position, "config", filled("config", 10));
    ByteBuffer.wrap(bytes).putInt(8, SnapshotFile.FORMAT_VERSION + 1);
    Files.write(file, withTrailer(java.util.Arrays.copyOf(bytes, bytes.length - 12)));

    assertThatThrownBy(
            () ->
                SnapshotFile.load(
                    file, position, Map.of("config", new KeyValueState("config")), new HashSet<>()))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(CorruptSnapshotException.class)
        .hasMessageContaining("newer");
  }

  /** A snapshot in format 1 (no header, name or chunk checksums), as earlier versions wrote. */
  private static byte[] formatOne(SnapshotFile.Position at, String name, ReplicatedState state)
      throws IOException {
    java.io.ByteArrayOutputStream content = new java.io.ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(content);
    out.writeLong(SnapshotFile.MAGIC);
    out.writeInt(1);
    out.writeLong(at.term());
    out.writeLong(at.index());
    out.writeInt(1);
    out.writeUTF(name);
    java.io.ByteArrayOutputStream section = new java.io.ByteArrayOutputStream();
    state.writeSnapshot(new DataOutputStream(section));
    byte[] bytes = section.toByteArray();
    for (int offset = 0; offset < bytes.length; offset += 64 << 10) {
      int length = Math.min(64 << 10, bytes.length - offset);
      out.writeInt(length);
      out.write(bytes, offset, length);
    }
    out.writeInt(0);
    out.flush();
    return withTrailer(content.toByteArray());
  }

  private static byte[] withTrailer(byte[] content) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(content);
    return ByteBuffer.allocate(content.length + 12)
        .put(content)
        .putLong(content.length)
        .putInt((int) crc.getValue())
        .array();
  }

  /** Writes given bytes; loading records every byte it was handed. */
  private static final class BytesState implements ReplicatedState {
    private final byte[] written;
    final java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream();

    BytesState(byte[] written) {
      this.written = written;
    }

    @Override
    public String name() {
      return "bytes";
    }

    @Override
    public Object apply(ByteBuffer command, long logIndex) {
      return null;
    }

    @Override
    public void writeSnapshot(DataOutputStream out) throws IOException {
      out.write(written);
    }

    @Override
    public void loadSnapshot(DataInputStream in) throws IOException {
      byte[] buffer = new byte[4096];
      for (int n; (n = in.read(buffer)) > 0; ) {
        seen.write(buffer, 0, n);
      }
    }
  }

  @Test
  void detectsATruncatedFile() throws IOException {
    Path file = dir.resolve("snapshot-3-1234.bin");
    SnapshotFile.write(file, position, List.of(filled("config", 1_000)));
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 100));

    assertThatThrownBy(() -> SnapshotFile.verify(file))
        .isInstanceOf(CorruptSnapshotException.class)
        .hasMessageContaining("trailer says");
  }

  @Test
  void refusesAFileThatIsNotASnapshot() throws IOException {
    Path file = dir.resolve("snapshot-3-1234.bin");
    Files.write(file, new byte[100]);

    assertThatThrownBy(() -> SnapshotFile.verify(file))
        .isInstanceOf(CorruptSnapshotException.class);
  }

  @Test
  void skipsTheSectionOfAStateThatNoLongerExists() throws IOException {
    Path file = dir.resolve("snapshot-3-1234.bin");
    SnapshotFile.write(file, position, List.of(filled("retired", 100), filled("config", 10)));
    KeyValueState config = new KeyValueState("config");

    SnapshotFile.load(file, Map.of("config", config));

    assertThat(config.size()).isEqualTo(10);
  }

  @Test
  void refusesAStateWhoseLoadDoesNotReadWhatItsWriteWrote() throws IOException {
    Path file = dir.resolve("snapshot-3-1234.bin");
    SnapshotFile.write(file, position, List.of(new LopsidedState(100, 50)));

    assertThatThrownBy(() -> SnapshotFile.load(file, Map.of("lopsided", new LopsidedState(0, 50))))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("left 50 bytes of its section unread");
  }

  @Test
  void leavesNothingBehindWhenAStateFailsToWrite() throws IOException {
    Path file = dir.resolve("snapshot-3-1234.bin");
    ReplicatedState failing = new LopsidedState(-1, 0);

    assertThatThrownBy(() -> SnapshotFile.write(file, position, List.of(failing)))
        .isInstanceOf(IOException.class);
    assertThat(Files.list(dir)).isEmpty();
  }

  @Test
  void twoWritersOfOneSnapshotAtOnceBothSucceedAndLeaveOneIntactFile() throws Exception {
    // As when Ratis writes its snapshot on stop while an in-process restart writes its own of the
    // same position: both are mid-write at once, then each renames onto the same name.
    Path file = dir.resolve("snapshot-3-1234.bin");
    KeyValueState config = filled("config", 2_000);
    CyclicBarrier bothWriting = new CyclicBarrier(2);
    ExecutorService writers = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> writes = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        writes.add(
            writers.submit(
                () -> {
                  SnapshotFile.write(
                      file, position, List.of(new MeetingState(config, bothWriting::await)));
                  return null;
                }));
      }
      for (Future<?> write : writes) {
        write.get(30, TimeUnit.SECONDS);
      }
    } finally {
      writers.shutdownNow();
    }

    KeyValueState loaded = new KeyValueState("config");
    assertThat(SnapshotFile.load(file, Map.of("config", loaded))).isEqualTo(position);
    assertThat(loaded.keys()).isEqualTo(config.keys());
    assertThat(Files.list(dir)).as("no temp file left").containsExactly(file);
  }

  @Test
  void aCleanUpDeletesACrashsTempFileButNotOneAWriterStillHolds() throws Exception {
    Path leftover = dir.resolve("snapshot-2-1000.bin.0123abcd.tmp");
    Files.write(leftover, new byte[100]);
    assertThat(SnapshotFile.isTemporary(leftover)).isTrue();
    assertThat(SnapshotFile.deleteIfAbandoned(leftover)).isTrue();
    assertThat(leftover).doesNotExist();

    Path file = dir.resolve("snapshot-3-1234.bin");
    KeyValueState config = filled("config", 100);
    CountDownLatch writing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService writer = Executors.newSingleThreadExecutor();
    try {
      Future<?> write =
          writer.submit(
              () -> {
                SnapshotFile.write(
                    file,
                    position,
                    List.of(
                        new MeetingState(
                            config,
                            () -> {
                              writing.countDown();
                              release.await();
                            })));
                return null;
              });
      assertThat(writing.await(30, TimeUnit.SECONDS)).isTrue();
      List<Path> temps;
      try (Stream<Path> files = Files.list(dir)) {
        temps = files.filter(SnapshotFile::isTemporary).toList();
      }
      assertThat(temps).hasSize(1);

      assertThat(SnapshotFile.deleteIfAbandoned(temps.get(0))).isFalse();
      assertThat(temps.get(0)).exists();

      release.countDown();
      write.get(30, TimeUnit.SECONDS);
    } finally {
      release.countDown();
      writer.shutdownNow();
    }
    assertThat(SnapshotFile.load(file, Map.of("config", new KeyValueState("config"))))
        .isEqualTo(position);
    assertThat(Files.list(dir)).containsExactly(file);
  }

  /** A state whose snapshot stops half-way at {@code meeting} (a barrier, a latch). */
  private record MeetingState(KeyValueState state, Meeting meeting) implements ReplicatedState {
    interface Meeting {
      void await() throws Exception;
    }

    @Override
    public String name() {
      return state.name();
    }

    @Override
    public Object apply(ByteBuffer command, long logIndex) {
      return state.apply(command, logIndex);
    }

    @Override
    public void writeSnapshot(DataOutputStream out) throws IOException {
      out.flush();
      try {
        meeting.await();
      } catch (Exception e) {
        throw new IOException("the other writer never came", e);
      }
      state.writeSnapshot(out);
    }

    @Override
    public void loadSnapshot(DataInputStream in) throws IOException {
      state.loadSnapshot(in);
    }
  }

  private static KeyValueState filled(String name, int entries) {
    KeyValueState state = new KeyValueState(name);
    for (int i = 0; i < entries; i++) {
      state.apply(ByteBuffer.wrap(KeyValueState.put("key-" + i, "value-" + i)), i);
    }
    return state;
  }

  /** Writes {@code written} bytes and reads {@code read}; -1 written means writing fails. */
  private record LopsidedState(int written, int read) implements ReplicatedState {
    @Override
    public String name() {
      return "lopsided";
    }

    @Override
    public Object apply(ByteBuffer command, long logIndex) {
      return null;
    }

    @Override
    public void writeSnapshot(DataOutputStream out) throws IOException {
      if (written < 0) {
        out.write(new byte[10]);
        throw new IOException("disk full");
      }
      out.write(new byte[written]);
    }

    @Override
    public void loadSnapshot(DataInputStream in) throws IOException {
      in.readFully(new byte[read]);
    }
  }
}
