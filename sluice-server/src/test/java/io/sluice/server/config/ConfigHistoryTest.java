package io.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.replication.LengthPrefixedString;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigHistoryTest {
  private static final ConfigKey APP = ConfigKey.of("", "G", "app.yaml");
  private static final ConfigKey OTHER = ConfigKey.of("dev", "G", "other.yaml");
  private static final long DAY = 24L * 3600 * 1000;

  @TempDir Path dir;

  private static ConfigHistoryEntry entry(long id, ConfigKey key, char op, long modified) {
    return new ConfigHistoryEntry(
        id,
        key,
        op,
        ConfigTarget.FORMAL,
        null,
        "content " + id,
        ContentMd5.of("content " + id),
        ConfigMeta.builder()
            .type("yaml")
            .appName("app")
            .srcUser("u" + id)
            .srcIp("10.0.0.1")
            .build(),
        1_000,
        modified);
  }

  private static List<Long> ids(Page<ConfigHistoryEntry> page) {
    return page.pageItems().stream().map(ConfigHistoryEntry::id).toList();
  }

  @Test
  void listsAConfigsEntriesNewestFirstOnePageAtATime() {
    try (ConfigHistory history = ConfigHistory.open(dir, 1 << 20)) {
      for (long id = 1; id <= 7; id++) {
        history.append(entry(id, id % 2 == 0 ? OTHER : APP, id == 1 ? 'I' : 'U', id));
      }
      Page<ConfigHistoryEntry> first = history.list(APP, 1, 3);
      assertThat(first.totalCount()).isEqualTo(4);
      assertThat(first.pagesAvailable()).isEqualTo(2);
      assertThat(ids(first)).containsExactly(7L, 5L, 3L);
      assertThat(ids(history.list(APP, 2, 3))).containsExactly(1L);
      assertThat(history.previous(APP, 5)).map(ConfigHistoryEntry::id).hasValue(3L);
      assertThat(history.previous(APP, 1)).isEmpty();
      assertThat(history.get(4)).hasValueSatisfying(e -> assertThat(e.key()).isEqualTo(OTHER));
    }
  }

  @Test
  void keepsEveryFieldAcrossAReopen() {
    ConfigHistoryEntry written =
        new ConfigHistoryEntry(
            1,
            APP,
            'I',
            ConfigTarget.TAG,
            "canary",
            "h\u00e9llo",
            ContentMd5.of("h\u00e9llo"),
            ConfigMeta.builder()
                .type("yaml")
                .appName("app")
                .desc("d")
                .configTags("a,b")
                .encryptedDataKey("k")
                .srcUser("alice")
                .srcIp("10.0.0.1")
                .use("u")
                .effect("e")
                .schema("s")
                .build(),
            5,
            6);
    try (ConfigHistory history = ConfigHistory.open(dir, 1 << 20)) {
      history.append(written);
      history.sync();
    }
    try (ConfigHistory reopened = ConfigHistory.open(dir, 1 << 20)) {
      assertThat(reopened.lastId()).isEqualTo(1);
      assertThat(reopened.get(1)).hasValue(written);
    }
  }

  @Test
  void skipsEntriesItKeepsAlreadyAsAReplayOfTheLogRewritesThem() {
    try (ConfigHistory history = ConfigHistory.open(dir, 1 << 20)) {
      history.append(entry(1, APP, 'I', 1));
      history.append(entry(2, APP, 'U', 2));
      history.append(entry(2, APP, 'U', 99));
      history.append(entry(1, APP, 'I', 99));
      assertThat(history.lastId()).isEqualTo(2);
      assertThat(history.list(APP, 1, 10).totalCount()).isEqualTo(2);
      assertThat(history.get(2))
          .hasValueSatisfying(e -> assertThat(e.modifiedMillis()).isEqualTo(2));
    }
  }

  @Test
  void cutsATornRecordAtTheTailAndKeepsEveryEntryBeforeIt() throws IOException {
    try (ConfigHistory history = ConfigHistory.open(dir, 1 << 20)) {
      for (long id = 1; id <= 3; id++) {
        history.append(entry(id, APP, 'U', id));
      }
      history.sync();
    }
    Path segment = onlySegment();
    long intact = Files.size(segment);
    // A crash in the middle of writing entry 4: its header and part of its payload made it
    // (the first 30 bytes of a record after the 12-byte segment header stand in for them).
    byte[] bytes = Files.readAllBytes(segment);
    try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.APPEND)) {
      channel.write(ByteBuffer.wrap(bytes, 12, 30));
    }

    try (ConfigHistory reopened = ConfigHistory.open(dir, 1 << 20)) {
      assertThat(Files.size(segment)).isEqualTo(intact);
      assertThat(reopened.lastId()).isEqualTo(3);
      assertThat(ids(reopened.list(APP, 1, 10))).containsExactly(3L, 2L, 1L);
      // Replaying the log writes entry 4 again, after the three that survived.
      reopened.append(entry(4, APP, 'U', 4));
      assertThat(reopened.get(4))
          .hasValueSatisfying(e -> assertThat(e.content()).isEqualTo("content 4"));
    }
  }

  @Test
  void cutsADamagedRecordAndWhatFollowsIt() throws IOException {
    try (ConfigHistory history = ConfigHistory.open(dir, 1 << 20)) {
      for (long id = 1; id <= 3; id++) {
        history.append(entry(id, APP, 'U', id));
      }
      history.sync();
    }
    Path segment = onlySegment();
    byte[] bytes = Files.readAllBytes(segment);
    bytes[bytes.length - 5] ^= 0x5A; // a flipped byte in entry 3's payload: its checksum fails
    Files.write(segment, bytes);

    try (ConfigHistory reopened = ConfigHistory.open(dir, 1 << 20)) {
      assertThat(reopened.lastId()).isEqualTo(2);
      assertThat(reopened.get(3)).isEmpty();
    }
  }

  @Test
  void rollsSegmentsAndPurgesWholeOnesOlderThanTheCutoffButNeverTheActiveOne() throws IOException {
    try (ConfigHistory history = ConfigHistory.open(dir, 400)) {
      history.append(entry(1, APP, 'I', 1));
      history.append(entry(2, APP, 'U', 2));
      history.append(entry(3, APP, 'U', 3));
      // A day later (segments also roll by age).
      history.append(entry(4, APP, 'U', 2 * DAY));
      assertThat(segments()).hasSizeGreaterThan(1);

      int removed = history.purgeOlderThan(DAY);

      assertThat(removed).isPositive();
      assertThat(history.get(1)).isEmpty();
      assertThat(history.get(4)).isPresent();
      assertThat(ids(history.list(APP, 1, 10))).contains(4L).doesNotContain(1L);
      assertThat(history.purgeOlderThan(Long.MAX_VALUE)).as("the active segment stays").isZero();
    }
  }

  @Test
  void readsASegmentOfFormatOneAndWritesNewEntriesToANewSegment() throws IOException {
    Files.write(dir.resolve("history-0000000001.log"), formatOneRecord(1, APP, 'I', "a: 1"));

    try (ConfigHistory history = ConfigHistory.open(dir, 1 << 20)) {
      ConfigHistoryEntry old = history.get(1).orElseThrow();
      assertThat(old.content()).isEqualTo("a: 1");
      assertThat(old.target()).isEqualTo(ConfigTarget.FORMAL);
      assertThat(old.meta().type()).isEqualTo("yaml");
      assertThat(old.meta().srcUser()).isEqualTo("alice");
      assertThat(old.meta().desc()).isNull();

      history.append(entry(2, APP, 'U', 2));
      history.sync();
    }
    assertThat(segments()).hasSize(2);
    try (ConfigHistory reopened = ConfigHistory.open(dir, 1 << 20)) {
      assertThat(ids(reopened.list(APP, 1, 10))).containsExactly(2L, 1L);
    }
  }

  @Test
  void givesASegmentWhoseHeaderACrashCutShortANewHeader() throws IOException {
    try (ConfigHistory history = ConfigHistory.open(dir, 1 << 20)) {
      history.append(entry(1, APP, 'I', 1));
      history.sync();
    }
    Path torn = dir.resolve("history-0000000002.log");
    Files.write(torn, new byte[] {0x53, 0x4C, 0x55}); // "SLU": the first bytes of the magic

    try (ConfigHistory history = ConfigHistory.open(dir, 1 << 20)) {
      history.append(entry(2, APP, 'U', 2));
      history.sync();
    }
    try (ConfigHistory reopened = ConfigHistory.open(dir, 1 << 20)) {
      assertThat(ids(reopened.list(APP, 1, 10))).containsExactly(2L, 1L);
    }
  }

  private Path onlySegment() throws IOException {
    List<Path> all = segments();
    assertThat(all).hasSize(1);
    return all.get(0);
  }

  private List<Path> segments() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().startsWith("history-")).sorted().toList();
    }
  }

  /** A record as format 1 wrote it, in a segment without a header. */
  private static byte[] formatOneRecord(long id, ConfigKey key, char op, String content)
      throws IOException {
    ByteArrayOutputStream payload = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(payload)) {
      out.writeLong(id);
      out.writeLong(1_000);
      out.writeLong(2_000);
      out.writeByte(op);
      LengthPrefixedString.write(out, key.namespace());
      LengthPrefixedString.write(out, key.group());
      LengthPrefixedString.write(out, key.dataId());
      LengthPrefixedString.write(out, "formal");
      LengthPrefixedString.write(out, null);
      LengthPrefixedString.write(out, content);
      LengthPrefixedString.write(out, ContentMd5.of(content));
      LengthPrefixedString.write(out, "yaml");
      LengthPrefixedString.write(out, "app");
      LengthPrefixedString.write(out, "alice");
      LengthPrefixedString.write(out, "10.0.0.1");
      LengthPrefixedString.write(out, null);
    }
    byte[] body = payload.toByteArray();
    CRC32C crc = new CRC32C();
    crc.update(body);
    return ByteBuffer.allocate(8 + body.length)
        .putInt(body.length)
        .putInt((int) crc.getValue())
        .put(body)
        .array();
  }
}
