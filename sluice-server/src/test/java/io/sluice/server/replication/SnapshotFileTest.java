package io.sluice.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
