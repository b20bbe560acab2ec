package io.sluice.bench.load.lean;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonTest {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void readsTopLevelScalarsOfAResponse() {
    byte[] body =
        utf8(
            "{\"resultCode\":500,\"errorCode\":300,\"message\":\"config data not exist\","
                + "\"requestId\":\"42\",\"success\":false}");

    assertThat(Json.intField(body, "resultCode", 200)).isEqualTo(500);
    assertThat(Json.intField(body, "errorCode", 0)).isEqualTo(300);
    assertThat(Json.stringField(body, "message")).isEqualTo("config data not exist");
    assertThat(Json.stringField(body, "requestId")).isEqualTo("42");
  }

  @Test
  void answersTheDefaultForAMissingKey() {
    assertThat(Json.intField(utf8("{\"x\":1}"), "resultCode", 200)).isEqualTo(200);
    assertThat(Json.stringField(utf8("{\"x\":1}"), "content")).isNull();
  }

  @Test
  void doesNotMistakeQuotedTextInsideAStringForAKey() {
    byte[] body = utf8("{\"content\":\"\\\"resultCode\\\":500\",\"resultCode\":200}");

    assertThat(Json.intField(body, "resultCode", -1)).isEqualTo(200);
    assertThat(Json.stringField(body, "content")).isEqualTo("\"resultCode\":500");
  }

  @Test
  void quotesWhatJsonRequiresAndReadsItBack() {
    String nasty = "a\"b\\c\nd\te\u0001ü";
    byte[] body = utf8(Json.quote(new StringBuilder("{\"k\":"), nasty).append('}').toString());

    assertThat(Json.stringField(body, "k")).isEqualTo(nasty);
  }
}
