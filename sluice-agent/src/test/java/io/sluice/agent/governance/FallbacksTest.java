package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.agent.bootstrap.BlockVerdict;
import io.sluice.flow.RuleKind;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FallbacksTest {
  @Test
  void readsAnAnswerPerResourceAndKindOfRefusal() throws Exception {
    Fallbacks fallbacks =
        Fallbacks.parse(
            "{\"fallbacks\":["
                + "{\"resource\":\"GET /a\",\"status\":200,\"body\":\"cached\"},"
                + "{\"resource\":\"GET b/x\",\"blockedBy\":[\"degrade\",\"param-flow\"],"
                + "\"outbound\":\"response\",\"status\":203,\"contentType\":\"application/json\","
                + "\"headers\":{\"x-fallback\":\"b\"},\"body\":\"[]\"}]}");

    BlockVerdict a = fallbacks.verdict("GET /a", RuleKind.SYSTEM);
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.reason()).isEqualTo("system");
    assertThat(a.contentType()).isEqualTo("text/plain;charset=UTF-8");
    assertThat(new String(a.body(), StandardCharsets.UTF_8)).isEqualTo("cached");
    assertThat(a.respondsOutbound()).isFalse();

    BlockVerdict b = fallbacks.verdict("GET b/x", RuleKind.DEGRADE);
    assertThat(b.respondsOutbound()).isTrue();
    assertThat(b.headers()).containsExactly("x-fallback", "b");
    assertThat(fallbacks.verdict("GET b/x", RuleKind.FLOW)).isNull();
    assertThat(fallbacks.verdict("GET /c", RuleKind.FLOW)).isNull();
    assertThat(fallbacks.descriptions())
        .containsExactly(
            "GET /a when refused by any rule: 200 text/plain;charset=UTF-8, 6 bytes",
            "GET b/x when refused by degrade, param-flow: 203 application/json, 2 bytes, 1 headers;"
                + " outbound calls get it as a synthetic response");
  }

  @Test
  void meansNoFallbacksWhenTheDocumentIsEmptyOrGone() throws Exception {
    assertThat(Fallbacks.parse(null).resources()).isEmpty();
    assertThat(Fallbacks.parse("  ").resources()).isEmpty();
    assertThat(Fallbacks.parse("{\"fallbacks\":[]}").resources()).isEmpty();
  }

  @Test
  void rejectsTheWholeDocumentNamingTheEntryAndTheFault() {
    assertRejected("[1]", "expected an object {\"fallbacks\": [...]}");
    assertRejected("{\"fallback\":[]}", "unknown member 'fallback' (expected only 'fallbacks')");
    assertRejected("{\"fallbacks\":[{\"status\":200}]}", "fallbacks[0]: 'resource' is required");
    assertRejected(
        "{\"fallbacks\":[{\"resource\":\"r\"}]}",
        "fallbacks[0] (r): 'status' is required, a number in 100-599");
    assertRejected(
        "{\"fallbacks\":[{\"resource\":\"r\",\"status\":600}]}",
        "fallbacks[0] (r): 'status' must be an integer in 100-599, was 600");
    assertRejected(
        "{\"fallbacks\":[{\"resource\":\"r\",\"status\":200,\"blockedBy\":[\"flw\"]}]}",
        "fallbacks[0] (r): unknown 'blockedBy' value flw (known: flow, degrade, param-flow,"
            + " system, authority)");
    assertRejected(
        "{\"fallbacks\":[{\"resource\":\"r\",\"status\":200,\"outbound\":\"reply\"}]}",
        "'outbound' must be \"exception\" or \"response\", was \"reply\"");
    assertRejected(
        "{\"fallbacks\":[{\"resource\":\"r\",\"status\":200,\"headers\":{\"bad name\":\"x\"}}]}",
        "'bad name' is not a header name");
    assertRejected(
        "{\"fallbacks\":[{\"resource\":\"r\",\"status\":200,\"headers\":{\"Content-Type\":\"x\"}}]}",
        "set 'Content-Type' through 'contentType' and 'body', not 'headers'");
    assertRejected(
        "{\"fallbacks\":[{\"resource\":\"r\",\"status\":200},"
            + "{\"resource\":\"r\",\"status\":503,\"blockedBy\":[\"flow\"]}]}",
        "fallbacks[1] (r): a fallback for flow refusals of this resource comes earlier");
    assertRejected(
        "{\"fallbacks\":[{\"resource\":\"r\",\"status\":200,\"body\":\""
            + "x".repeat(Fallbacks.MAX_BODY_BYTES + 1)
            + "\"}]}",
        "'body' is 65537 bytes, more than 65536");
  }

  private static void assertRejected(String json, String message) {
    assertThatThrownBy(() -> Fallbacks.parse(json))
        .isInstanceOf(Fallbacks.InvalidFallbacksException.class)
        .hasMessageContaining(message);
  }
}
