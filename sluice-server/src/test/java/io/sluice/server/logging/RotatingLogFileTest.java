package io.sluice.server.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.event.Level;

class RotatingLogFileTest {
  private final ObjectMapper json = new ObjectMapper();
  @TempDir Path dir;

  private static String line(int n) {
    return new LogLine(
            1_764_583_200_000L + n,
            Level.INFO,
            "main",
            "io.sluice.server.Test",
            "line " + n + " " + "x".repeat(60),
            null,
            false)
        .json();
  }

  private List<JsonNode> lines(Path file) throws Exception {
    List<JsonNode> parsed = new ArrayList<>();
    for (String text : Files.readAllLines(file)) {
      parsed.add(json.readTree(text));
    }
    return parsed;
  }

  @Test
  void rotatesBySizeAndKeepsNoMoreFilesThanAllowed() throws Exception {
    Path file = dir.resolve("logs").resolve("sluice-server.log");
    RotatingLogFile log = RotatingLogFile.openUnstarted(file, 4_096, 3, 10_000);
    for (int n = 0; n < 300; n++) {
      log.offer(line(n));
    }
    log.close();

    try (Stream<Path> files = Files.list(file.getParent())) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder(
              "sluice-server.log", "sluice-server.log.1", "sluice-server.log.2");
    }
    for (int n = 0; n < 3; n++) {
      assertThat(Files.size(log.numbered(n))).isLessThanOrEqualTo(4_096);
    }
    List<JsonNode> newest = lines(file);
    assertThat(newest.get(newest.size() - 1).get("message").asText()).startsWith("line 299 ");
    List<JsonNode> older = lines(log.numbered(1));
    int lastOlder =
        Integer.parseInt(older.get(older.size() - 1).get("message").asText().split(" ")[1]);
    int firstNewest = Integer.parseInt(newest.get(0).get("message").asText().split(" ")[1]);
    assertThat(firstNewest).isEqualTo(lastOlder + 1);
  }

  @Test
  void dropsAndCountsWhatTheQueueCannotHoldAndSaysSoInTheFile() throws Exception {
    Path file = dir.resolve("sluice-server.log");
    RotatingLogFile log = RotatingLogFile.openUnstarted(file, 1 << 20, 2, 4);
    for (int n = 0; n < 10; n++) {
      log.offer(line(n));
    }
    assertThat(log.dropped()).isEqualTo(6);
    log.close();

    List<JsonNode> written = lines(file);
    assertThat(written).hasSize(5);
    assertThat(written.get(4).get("level").asText()).isEqualTo("WARN");
    assertThat(written.get(4).get("message").asText())
        .isEqualTo("6 log lines were dropped: the log file could not keep up");
  }

  @Test
  void appendsToTheFileAfterARestart() throws Exception {
    Path file = dir.resolve("sluice-server.log");
    RotatingLogFile first = RotatingLogFile.open(file, 1 << 20, 2);
    first.offer(line(1));
    first.close();
    RotatingLogFile second = RotatingLogFile.open(file, 1 << 20, 2);
    second.offer(line(2));
    second.close();

    assertThat(lines(file))
        .extracting(l -> l.get("message").asText().split(" ")[1])
        .containsExactly("1", "2");
  }

  @Test
  void refusesBoundsThatKeepNothing() {
    Path file = dir.resolve("sluice-server.log");
    assertThatThrownBy(() -> RotatingLogFile.open(file, 100, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 4096 bytes");
    assertThatThrownBy(() -> RotatingLogFile.open(file, 1 << 20, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 to 100 files");
  }
}
