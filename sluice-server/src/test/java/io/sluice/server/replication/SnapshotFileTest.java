package io.sluice.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
