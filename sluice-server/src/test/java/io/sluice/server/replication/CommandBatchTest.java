package io.sluice.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class CommandBatchTest {
  @Test
  void readsBackEveryCommandWithItsStateInOrder() {
    List<Submission> submissions =
        List.of(
            submission("config", "first"),
            submission("namespaces", ""),
            submission("config", "third"));
    byte[] entry = CommandBatch.encode(42, 7, submissions);

    CommandBatch.Reader reader = CommandBatch.read(ByteBuffer.wrap(entry));
    List<String> read = new ArrayList<>();
    while (reader.next()) {
      read.add(utf8(reader.stateName()) + "=" + utf8(reader.command()));
    }

    assertThat(reader.proposerId()).isEqualTo(42);
    assertThat(reader.sequence()).isEqualTo(7);
    assertThat(reader.count()).isEqualTo(3);
    assertThat(read).containsExactly("config=first", "namespaces=", "config=third");
    int frames = 0;
    for (Submission s : submissions) {
      frames += CommandBatch.frameBytes(s.stateName(), s.command().length);
    }
    assertThat(entry).hasSize(CommandBatch.HEADER_BYTES + frames);
  }

  @Test
  void givesReadOnlyViewsSoAStateCannotCorruptTheLogEntry() {
    byte[] entry = CommandBatch.encode(1, 1, List.of(submission("kv", "abc")));
    CommandBatch.Reader reader = CommandBatch.read(ByteBuffer.wrap(entry));
    reader.next();

    assertThat(reader.command().isReadOnly()).isTrue();
  }

  @Test
  void refusesAnEntryOfAnotherFormatVersion() {
    byte[] entry = CommandBatch.encode(1, 1, List.of(submission("kv", "abc")));
    entry[0] = 2;

    assertThatThrownBy(() -> CommandBatch.read(ByteBuffer.wrap(entry)))
        .isInstanceOf(CommandBatch.MalformedBatchException.class)
        .hasMessageContaining("version 2");
  }

  @Test
  void refusesATruncatedEntry() {
    byte[] entry = CommandBatch.encode(1, 1, List.of(submission("kv", "abcdef")));
    CommandBatch.Reader reader =
        CommandBatch.read(ByteBuffer.wrap(Arrays.copyOf(entry, entry.length - 2)));

    assertThatThrownBy(reader::next).isInstanceOf(CommandBatch.MalformedBatchException.class);
  }

  @Test
  void refusesTrailingBytesAfterTheLastCommand() {
    byte[] entry = CommandBatch.encode(1, 1, List.of(submission("kv", "abc")));
    CommandBatch.Reader reader =
        CommandBatch.read(ByteBuffer.wrap(Arrays.copyOf(entry, entry.length + 1)));
    reader.next();

    assertThatThrownBy(reader::next).isInstanceOf(CommandBatch.MalformedBatchException.class);
  }

  private static Submission submission(String state, String command) {
    return new Submission(
        state.getBytes(StandardCharsets.UTF_8),
        command.getBytes(StandardCharsets.UTF_8),
        new CompletableFuture<>());
  }

  private static String utf8(ByteBuffer buffer) {
    return StandardCharsets.UTF_8.decode(buffer.duplicate()).toString();
  }
}
