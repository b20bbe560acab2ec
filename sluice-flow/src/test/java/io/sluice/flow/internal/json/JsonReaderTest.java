package io.sluice.flow.internal.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonReaderTest {

  @Test
  void readsObjectsArraysAndScalarsInDocumentOrder() throws Exception {
    Object value =
        JsonReader.parse(
            " [ {\"b\": 1, \"a\": -2.5e1, \"s\": \"x\\ty\", \"t\": true, \"f\": false, \"n\": null,"
                + " \"e\": [], \"o\": {}} ] ");
    assertThat(value).isInstanceOf(List.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> object = (Map<String, Object>) ((List<?>) value).get(0);
    assertThat(object.keySet()).containsExactly("b", "a", "s", "t", "f", "n", "e", "o");
    assertThat(object.get("b")).isEqualTo(new BigDecimal("1"));
    assertThat(((BigDecimal) object.get("a")).doubleValue()).isEqualTo(-25.0);
    assertThat(object.get("s")).isEqualTo("x\ty");
    assertThat(object.get("t")).isEqualTo(Boolean.TRUE);
    assertThat(object.get("f")).isEqualTo(Boolean.FALSE);
    assertThat(object.get("n")).isSameAs(JsonReader.NULL);
    assertThat((List<?>) object.get("e")).isEmpty();
    assertThat((Map<?, ?>) object.get("o")).isEmpty();
  }

  @Test
  void decodesEveryEscapeIncludingSurrogatePairs() throws Exception {
    Object value = JsonReader.parse("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\ude00\"");
    assertThat(value).isEqualTo("\" \\ / \b \f \n \r \t \u00e9 \uD83D\uDE00");
  }

  @Test
  void keepsRawNonAsciiTextAndSkipsALeadingByteOrderMark() throws Exception {
    assertThat(JsonReader.parse("\uFEFF\"GET /订单/{id} \uD83D\uDE00\""))
        .isEqualTo("GET /订单/{id} \uD83D\uDE00");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "   ",
        "[1,]",
        "{\"a\":1,}",
        "[1 2]",
        "{\"a\" 1}",
        "{a:1}",
        "{'a':1}",
        "['a']",
        "[01]",
        "[-]",
        "[1.]",
        "[.5]",
        "[1e]",
        "[+1]",
        "[NaN]",
        "[Infinity]",
        "[tru]",
        "[nul]",
        "[\"a]",
        "[\"\\x\"]",
        "[\"\\u12G4\"]",
        "[\"\\u123\"]",
        "[\"\\ud800\"]",
        "[\"\\udc00\"]",
        "[\"\\ud800\\u0041\"]",
        "[1] [2]",
        "[1] x",
        "// comment\n[]",
        "[/* c */]",
        "{\"a\":1,\"a\":2}",
        "[\"tab\there\"]",
        "[\"line\nbreak\"]",
        "[\u00a01]"
      })
  void rejectsWhatRfc8259DoesNotAllow(String text) {
    assertThatThrownBy(() -> JsonReader.parse(text))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessageStartingWith("malformed JSON at line");
  }

  @Test
  void rejectsALoneSurrogateInRawText() {
    assertThatThrownBy(() -> JsonReader.parse("[\"\uD800x\"]"))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessageContaining("lone surrogate");
  }

  @Test
  void saysTheLineAndColumnOfTheError() {
    assertThatThrownBy(() -> JsonReader.parse("[\n  {\"a\": 1},\n  {\"b\": }\n]"))
        .hasMessage("malformed JSON at line 3, column 9: unexpected '}'");
  }

  @Test
  void namesTheDuplicateMember() {
    assertThatThrownBy(() -> JsonReader.parse("{\"count\": 1, \"count\": 2}"))
        .hasMessageContaining("duplicate member \"count\"");
  }

  @Test
  void boundsNestingDepthWithoutOverflowingTheStack() {
    String deep = "[".repeat(100_000) + "]".repeat(100_000);
    assertThatThrownBy(() -> JsonReader.parse(deep))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessageContaining("nesting deeper than 32");
  }

  @Test
  void boundsDocumentLengthAndValueCount() {
    assertThatThrownBy(() -> JsonReader.parse("[1,2,3]", 6, 32, 100))
        .hasMessageContaining("more than the limit of 6");
    assertThatThrownBy(() -> JsonReader.parse("[1,2,3]", 100, 32, 3))
        .hasMessageContaining("more than 3 values");
  }

  @Test
  void boundsNumberLengthAndExponent() {
    assertThatThrownBy(() -> JsonReader.parse("[" + "9".repeat(100) + "]"))
        .hasMessageContaining("number longer than 64");
    assertThatThrownBy(() -> JsonReader.parse("[1e999999999]"))
        .hasMessageContaining("exponent out of range");
  }

  @Test
  void rejectsNull() {
    assertThatThrownBy(() -> JsonReader.parse(null)).isInstanceOf(MalformedJsonException.class);
  }

  @Test
  void returnsUnmodifiableContainers() throws Exception {
    List<?> list = (List<?>) JsonReader.parse("[{\"a\":1}]");
    assertThatThrownBy(() -> list.remove(0)).isInstanceOf(UnsupportedOperationException.class);
    Map<?, ?> map = (Map<?, ?>) list.get(0);
    assertThatThrownBy(map::clear).isInstanceOf(UnsupportedOperationException.class);
  }
}
