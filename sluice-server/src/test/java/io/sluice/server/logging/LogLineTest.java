package io.sluice.server.logging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

class LogLineTest {
  private final ObjectMapper json = new ObjectMapper();

  @Test
  void writesOneJsonObjectPerLineThatAnyParserReadsBack() throws Exception {
    String message = "a \"quoted\" \\ path\nsecond line\ttab \u0001 é 😀";
    LogLine line =
        new LogLine(
            1_764_583_200_123L,
            Level.WARN,
            "vert.x-eventloop-thread-0",
            "io.sluice.server.protocol.ClientFaultLog",
            message,
            new IllegalStateException("broken"),
            false);

    String text = line.json();
    assertThat(text).endsWith("}\n");
    assertThat(text.substring(0, text.length() - 1)).doesNotContain("\n");
    JsonNode parsed = json.readTree(text);
    assertThat(parsed.get("time").asText()).isEqualTo("2025-12-01T10:00:00.123Z");
    assertThat(parsed.get("level").asText()).isEqualTo("WARN");
    assertThat(parsed.get("thread").asText()).isEqualTo("vert.x-eventloop-thread-0");
    assertThat(parsed.get("logger").asText()).isEqualTo("io.sluice.server.protocol.ClientFaultLog");
    assertThat(parsed.get("message").asText()).isEqualTo(message);
    assertThat(parsed.get("error").asText())
        .startsWith("java.lang.IllegalStateException: broken")
        .contains("\tat io.sluice.server.logging.LogLineTest");
  }

  @Test
  void cutsAHugeMessageSoNoEventMakesAHugeLine() throws Exception {
    String huge = "y".repeat(LogLine.MAX_CHARS - 1) + "😀" + "z".repeat(1_000);
    JsonNode parsed = json.readTree(new LogLine(0, Level.INFO, "t", "l", huge, null, false).json());
    assertThat(parsed.get("message").asText())
        .hasSize(LogLine.MAX_CHARS - 1 + "... (cut)".length())
        .endsWith("y... (cut)");
    assertThat(parsed.has("error")).isFalse();
  }

  @Test
  void printsTheConsoleLineAsSlf4jSimpleDid() {
    String console =
        new LogLine(0, Level.INFO, "main", "io.sluice.server.SluiceServer", "hello", null, false)
            .console();
    assertThat(console)
        .matches(
            "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\[main\\] INFO SluiceServer - hello\\R");
  }

  @Test
  void takesTheLevelOfTheLongestPrefixAndLetsSystemPropertiesOverride() {
    Properties system = new Properties();
    system.setProperty("sluice.log.level.io.netty.handler", "debug");
    system.setProperty("sluice.log.level", "warn");
    system.setProperty("unrelated", "x");
    LogLevels levels = LogLevels.load(system);

    assertThat(levels.thresholdOf("io.netty.channel.Foo")).isEqualTo(Level.WARN.toInt());
    assertThat(levels.thresholdOf("io.netty.handler.ssl.SslHandler"))
        .isEqualTo(Level.DEBUG.toInt());
    assertThat(levels.thresholdOf("org.apache.ratis.server.RaftServer"))
        .isEqualTo(Level.WARN.toInt());
    assertThat(levels.thresholdOf("io.sluice.server.SluiceServer")).isEqualTo(Level.WARN.toInt());
    assertThat(levels.thresholdOf("io.nettyish.Other")).isEqualTo(Level.WARN.toInt());
    assertThat(LogLevels.load(new Properties()).thresholdOf("io.sluice.server.X"))
        .isEqualTo(Level.INFO.toInt());
    assertThat(LogLevels.load(new Properties()).thresholdOf("io.vertx.core.Vertx"))
        .isEqualTo(Level.WARN.toInt());
  }

  @Test
  void offSilencesALoggerEvenAtError() {
    Properties system = new Properties();
    system.setProperty("sluice.log.level.com.example.Noisy", " Off ");
    LogLevels levels = LogLevels.load(system);
    ServerLogger noisy =
        new ServerLogger("com.example.Noisy", levels.thresholdOf("com.example.Noisy"), null);

    assertThat(levels.thresholdOf("com.example.Noisy")).isEqualTo(LogLevels.OFF);
    assertThat(noisy.isErrorEnabled()).isFalse();
    noisy.error("never written", new IllegalStateException()); // a null output would throw
    assertThat(levels.thresholdOf("com.example.Quiet")).isEqualTo(Level.INFO.toInt());
  }

  @Test
  void ratisClientsPerAttemptStackTracesAreOffByDefault() {
    // Replaced by the forwarding log's one line per interval (ForwardingFailureLog).
    LogLevels levels = LogLevels.load(new Properties());

    assertThat(levels.thresholdOf("org.apache.ratis.client.impl.OrderedAsync"))
        .isEqualTo(LogLevels.OFF);
    assertThat(levels.thresholdOf("org.apache.ratis.client.impl.RaftClientImpl"))
        .isEqualTo(Level.WARN.toInt());
  }
}
